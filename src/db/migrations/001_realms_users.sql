-- Organizations and their users.
CREATE TABLE realms (
  id            serial PRIMARY KEY,
  string_id     text NOT NULL UNIQUE,          -- subdomain; '' is the root realm
  name          text NOT NULL,
  description   text NOT NULL DEFAULT '',
  date_created  timestamptz NOT NULL DEFAULT now(),
  deactivated   boolean NOT NULL DEFAULT false,
  settings      jsonb NOT NULL DEFAULT '{}'::jsonb
);

CREATE TABLE users (
  id                serial PRIMARY KEY,
  realm_id          integer NOT NULL REFERENCES realms(id),
  delivery_email    text NOT NULL,
  full_name         text NOT NULL,
  password_hash     text,                      -- NULL: password login disabled for this account
  api_key           text NOT NULL UNIQUE,
  role              smallint NOT NULL DEFAULT 400,
  is_active         boolean NOT NULL DEFAULT true,
  is_bot            boolean NOT NULL DEFAULT false,
  bot_type          smallint,
  bot_owner_id      integer REFERENCES users(id),
  timezone          text NOT NULL DEFAULT '',
  date_joined       timestamptz NOT NULL DEFAULT now(),
  avatar_source     char(1) NOT NULL DEFAULT 'G',
  avatar_version    integer NOT NULL DEFAULT 1,
  can_create_users  boolean NOT NULL DEFAULT false,
  settings          jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE UNIQUE INDEX users_realm_email ON users (realm_id, lower(delivery_email));
CREATE INDEX users_realm ON users (realm_id);
