-- Things a user keeps for later: messages scheduled to be sent, reminders about messages,
-- drafts synchronized between devices, saved snippets and navigation views.

-- A message to send later (delivery_type 1) or a reminder (2: a direct message from
-- Notification Bot to the sender, about reminder_target_message_id). A row is delivered
-- once: delivery claims it (delivered = true) in the realm's fenced writes, and the message
-- it sends carries an idempotency key naming the row, so a delivery interrupted after the
-- message was stored finishes without storing it twice.
CREATE TABLE scheduled_messages (
  id                          serial PRIMARY KEY,
  realm_id                    integer NOT NULL REFERENCES realms(id),
  sender_id                   integer NOT NULL REFERENCES users(id),
  delivery_type               smallint NOT NULL CHECK (delivery_type IN (1, 2)),
  stream_id                   integer REFERENCES streams(id),
  dm_user_ids                 integer[],     -- sorted participants (sender included) of a direct message
  topic                       text NOT NULL DEFAULT '',
  content                     text NOT NULL,
  rendered_content            text NOT NULL,
  client                      text NOT NULL DEFAULT '',
  scheduled_at                timestamptz NOT NULL,
  read_by_sender              boolean NOT NULL DEFAULT false,
  delivered                   boolean NOT NULL DEFAULT false,
  delivered_message_id        bigint,        -- not a foreign key: the message may be deleted later
  failed                      boolean NOT NULL DEFAULT false,
  failure_message             text,
  reminder_target_message_id  bigint,
  CHECK ((stream_id IS NULL) <> (dm_user_ids IS NULL))
);
-- What the delivery sweep looks for.
CREATE INDEX scheduled_messages_due ON scheduled_messages (scheduled_at) WHERE NOT delivered AND NOT failed;
-- A user's pending scheduled messages and reminders (failed ones included: they are shown).
CREATE INDEX scheduled_messages_sender ON scheduled_messages (sender_id, delivery_type, scheduled_at) WHERE NOT delivered;

-- Message drafts, kept on the server while the user's enable_drafts_synchronization is on.
CREATE TABLE drafts (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  user_id         integer NOT NULL REFERENCES users(id),
  stream_id       integer REFERENCES streams(id),
  dm_user_ids     integer[],                 -- sorted participants (the user included)
  topic           text NOT NULL DEFAULT '',
  content         text NOT NULL,
  last_edit_time  timestamptz NOT NULL,
  CHECK (stream_id IS NULL OR dm_user_ids IS NULL)   -- both NULL: a draft with no recipient yet
);
CREATE INDEX drafts_user ON drafts (user_id, last_edit_time);

CREATE TABLE saved_snippets (
  id            serial PRIMARY KEY,
  realm_id      integer NOT NULL REFERENCES realms(id),
  user_id       integer NOT NULL REFERENCES users(id),
  title         text NOT NULL,
  content       text NOT NULL,
  date_created  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_snippets_user ON saved_snippets (user_id, id);

-- Views of the web app's left sidebar: built-in ones (by fragment) and the user's own.
CREATE TABLE navigation_views (
  id         serial PRIMARY KEY,
  realm_id   integer NOT NULL REFERENCES realms(id),
  user_id    integer NOT NULL REFERENCES users(id),
  fragment   text NOT NULL,
  is_pinned  boolean NOT NULL,
  name       text
);
CREATE UNIQUE INDEX navigation_views_user_fragment ON navigation_views (user_id, fragment);
CREATE INDEX navigation_views_user ON navigation_views (user_id, id);
