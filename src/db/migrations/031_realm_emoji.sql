-- Custom emoji of an organization (Zulip's RealmEmoji). Deleting one deactivates it: reactions
-- and messages that used it keep their image.
CREATE TABLE realm_emoji (
  id          serial PRIMARY KEY,
  realm_id    integer NOT NULL REFERENCES realms(id),
  name        text NOT NULL,
  author_id   integer REFERENCES users(id),
  deactivated boolean NOT NULL DEFAULT false,
  created     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (realm_id, name) WHERE NOT deactivated;
