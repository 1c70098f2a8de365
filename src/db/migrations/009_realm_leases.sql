-- Which worker process may write a realm, and since when (cluster mode only; the one-process
-- mode never reads or writes this table). A worker holds a realm while `expires_at` is in the
-- future and renews it; taking a realm over bumps `epoch`. Every write transaction of a realm
-- in cluster mode first checks (owner, epoch) against this row with FOR SHARE, so a worker
-- that lost its lease (paused, partitioned) cannot commit, and a takeover waits for the
-- previous owner's transactions in flight.
CREATE TABLE realm_leases (
  realm_id    integer PRIMARY KEY REFERENCES realms(id) ON DELETE CASCADE,
  owner       text NOT NULL,
  epoch       bigint NOT NULL,
  expires_at  timestamptz NOT NULL
);
