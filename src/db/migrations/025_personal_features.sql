-- Per-user features that real clients call: muted users, the user's status, and the
-- key-value storage bots keep their state in.

-- A user muted by another: their messages arrive read and notify nobody who muted them.
CREATE TABLE muted_users (
  realm_id       integer NOT NULL REFERENCES realms(id),
  user_id        integer NOT NULL REFERENCES users(id),
  muted_user_id  integer NOT NULL REFERENCES users(id),
  date_muted     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, muted_user_id)
);
CREATE INDEX muted_users_realm ON muted_users (realm_id);

-- A user's status: a short text and an emoji. A row exists once the user set a status (even
-- an empty one); its legacy `away` flag is the user's presence_enabled setting, inverted.
CREATE TABLE user_status (
  user_id        integer PRIMARY KEY REFERENCES users(id),
  realm_id       integer NOT NULL REFERENCES realms(id),
  status_text    text NOT NULL DEFAULT '',
  emoji_name     text NOT NULL DEFAULT '',
  emoji_code     text NOT NULL DEFAULT '',
  reaction_type  text NOT NULL DEFAULT 'unicode_emoji',
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX user_status_realm ON user_status (realm_id);

-- State a bot (or any user) keeps between runs: string keys and values.
CREATE TABLE bot_storage (
  user_id  integer NOT NULL REFERENCES users(id),
  key      text NOT NULL,
  value    text NOT NULL,
  PRIMARY KEY (user_id, key)
);
