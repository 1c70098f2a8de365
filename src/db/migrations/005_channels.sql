-- Channels: the columns the API reports that 004 lacks, and the subscription history that
-- private channels with protected history need (which messages a user may read depends on
-- when they were subscribed).
ALTER TABLE streams ADD COLUMN first_message_id integer;
ALTER TABLE streams ADD COLUMN is_recently_active boolean NOT NULL DEFAULT true;

CREATE TABLE subscription_log (
  id              bigserial PRIMARY KEY,
  user_id         integer NOT NULL REFERENCES users(id),
  stream_id       integer NOT NULL REFERENCES streams(id),
  event           text NOT NULL CHECK (event IN ('subscribed', 'unsubscribed')),
  message_id_at   integer NOT NULL DEFAULT 0,   -- the realm's highest message id at that moment
  at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscription_log_user_stream ON subscription_log (user_id, stream_id, id);
