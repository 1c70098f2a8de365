-- Uploaded files (Zulip's Attachment): one row per upload, with the messages that link it.
-- A message deleted for good takes its links with it; an upload no message links is removed
-- with its bytes by the cleanup job after a grace period.
CREATE TABLE attachments (
  id            serial PRIMARY KEY,
  realm_id      integer NOT NULL REFERENCES realms(id),
  owner_id      integer NOT NULL REFERENCES users(id),
  -- `<realm_id>/<xx>/<random>/<sanitised name>`: the URL is /user_uploads/<path_id>.
  path_id       text NOT NULL UNIQUE,
  file_name     text NOT NULL,
  content_type  text NOT NULL,
  size          bigint NOT NULL,
  create_time   timestamptz NOT NULL DEFAULT now(),
  -- Filled by the thumbnail job for images.
  width         integer,
  height        integer
);
CREATE INDEX attachments_owner ON attachments (owner_id);
CREATE INDEX attachments_realm ON attachments (realm_id);

CREATE TABLE attachment_messages (
  attachment_id integer NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
  message_id    bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  PRIMARY KEY (attachment_id, message_id)
);
CREATE INDEX attachment_messages_message ON attachment_messages (message_id);

-- Short-lived download tokens (GET /user_uploads/... under /api/v1 hands one out, as the
-- mobile apps use them to open a file in a browser without credentials).
CREATE TABLE upload_url_tokens (
  token         text PRIMARY KEY,
  attachment_id integer NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
  expires_at    timestamptz NOT NULL
);
