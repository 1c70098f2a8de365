-- Channels ("streams" in the API and here) and users' subscriptions to them.
CREATE TABLE streams (
  id                              serial PRIMARY KEY,
  realm_id                        integer NOT NULL REFERENCES realms(id),
  name                            text NOT NULL,
  description                     text NOT NULL DEFAULT '',
  rendered_description            text NOT NULL DEFAULT '',
  date_created                    timestamptz NOT NULL DEFAULT now(),
  creator_id                      integer REFERENCES users(id),
  invite_only                     boolean NOT NULL DEFAULT false,
  is_web_public                   boolean NOT NULL DEFAULT false,
  history_public_to_subscribers   boolean NOT NULL DEFAULT true,
  is_archived                     boolean NOT NULL DEFAULT false,
  is_default                      boolean NOT NULL DEFAULT false,
  message_retention_days          integer,          -- NULL: realm default; -1: forever
  folder_id                       integer,
  topics_policy                   text NOT NULL DEFAULT 'inherit',
  settings                        jsonb NOT NULL DEFAULT '{}'::jsonb   -- permission group settings
);
CREATE UNIQUE INDEX streams_realm_name ON streams (realm_id, lower(name));

CREATE TABLE subscriptions (
  user_id                   integer NOT NULL REFERENCES users(id),
  stream_id                 integer NOT NULL REFERENCES streams(id),
  active                    boolean NOT NULL DEFAULT true,
  color                     text NOT NULL DEFAULT '#c2c2c2',
  is_muted                  boolean NOT NULL DEFAULT false,
  pin_to_top                boolean NOT NULL DEFAULT false,
  desktop_notifications     boolean,
  audible_notifications     boolean,
  push_notifications        boolean,
  email_notifications       boolean,
  wildcard_mentions_notify  boolean,
  PRIMARY KEY (user_id, stream_id)
);
CREATE INDEX subscriptions_stream ON subscriptions (stream_id) WHERE active;
