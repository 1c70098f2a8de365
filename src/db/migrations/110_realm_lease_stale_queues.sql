-- Set by a realm's holder whose event queue copies in Redis may lack events: a dirty mark did
-- not reach Redis, or the queues could not be written when the realm was handed over. The
-- next holder then restores none of those copies (their clients register again) instead of
-- queues that would silently miss events. Taking the lease reads and clears it.
ALTER TABLE realm_leases ADD COLUMN queues_stale boolean NOT NULL DEFAULT false;
