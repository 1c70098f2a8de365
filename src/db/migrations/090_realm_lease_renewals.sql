-- Renewals of a realm lease must not wait for the holder's own write transactions: those
-- check the lease row with FOR KEY SHARE, which an UPDATE of expires_at alone does not
-- conflict with. A takeover changes epoch, and with epoch in a unique index that UPDATE takes
-- the row FOR UPDATE, which still waits for the previous owner's transactions in flight.
CREATE UNIQUE INDEX realm_leases_epoch ON realm_leases (realm_id, epoch);
