-- Browser sessions of the web client (Zulip's session cookie). The cookie holds a random id;
-- only its SHA-256 is stored, so a copy of this table logs nobody in. Any worker of a cluster
-- can check a session here; the realm's actor caches what it has checked.
CREATE TABLE sessions (
  id_hash     text PRIMARY KEY,
  realm_id    integer NOT NULL REFERENCES realms(id),
  user_id     integer NOT NULL REFERENCES users(id),
  -- Sent by the page as X-CSRFToken on every non-GET /json request.
  csrf_token  text NOT NULL,
  -- Derived from the password hash at login: a changed password ends every other session.
  auth_hash   text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
