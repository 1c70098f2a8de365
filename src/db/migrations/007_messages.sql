-- Messages, per-user message flags, reactions and users' topic visibility policies.
--
-- Storage is designed so that sending to a channel writes a constant number of rows,
-- whatever the channel's size: one `messages` row plus the sender's `message_flags` row
-- (and one flags row per mentioned user). Who received a channel message follows from
-- the subscription history (subscribed when the message id was assigned); only flags that
-- differ from the default (unread, nothing else) are stored.

-- A conversation: one per channel, one per set of direct-message participants.
CREATE TABLE message_recipients (
  id         serial PRIMARY KEY,
  realm_id   integer NOT NULL REFERENCES realms(id),
  stream_id  integer UNIQUE REFERENCES streams(id),
  user_ids   integer[],          -- sorted participants (sender included) of a direct conversation
  CHECK ((stream_id IS NULL) <> (user_ids IS NULL))
);
CREATE UNIQUE INDEX message_recipients_direct ON message_recipients (realm_id, user_ids) WHERE user_ids IS NOT NULL;
CREATE INDEX message_recipients_realm ON message_recipients (realm_id);

CREATE TABLE messages (
  id                  bigint PRIMARY KEY,      -- assigned by the realm actor from messages_id_seq
  realm_id            integer NOT NULL REFERENCES realms(id),
  sender_id           integer NOT NULL REFERENCES users(id),
  recipient_id        integer NOT NULL REFERENCES message_recipients(id),
  stream_id           integer REFERENCES streams(id),   -- NULL for direct messages
  topic               text NOT NULL DEFAULT '',
  content             text NOT NULL,
  rendered_content    text NOT NULL,
  date_sent           timestamptz NOT NULL DEFAULT now(),
  last_edit_time      timestamptz,
  last_moved_time     timestamptz,
  edit_history        jsonb,                   -- newest first, as the API returns it
  is_me_message       boolean NOT NULL DEFAULT false,
  has_link            boolean NOT NULL DEFAULT false,
  has_image           boolean NOT NULL DEFAULT false,
  has_attachment      boolean NOT NULL DEFAULT false,
  client              text NOT NULL DEFAULT '',
  -- After a move between channels the subscription history of the destination no longer
  -- says who received the message; its recipients are then the users with flags rows.
  recipients_listed   boolean NOT NULL DEFAULT false,
  -- A channel-wide mention (@all, @channel…) marks every recipient; stored once here instead
  -- of once per recipient.
  mentions_stream_wildcard boolean NOT NULL DEFAULT false,
  idempotency_key     text,
  search              tsvector GENERATED ALWAYS AS (to_tsvector('english', topic || ' ' || content)) STORED
);
CREATE SEQUENCE messages_id_seq OWNED BY messages.id;
CREATE INDEX messages_realm_id ON messages (realm_id, id);
CREATE INDEX messages_recipient_id ON messages (recipient_id, id);
CREATE INDEX messages_stream_topic ON messages (stream_id, lower(topic), id) WHERE stream_id IS NOT NULL;
CREATE INDEX messages_sender ON messages (sender_id, id);
CREATE INDEX messages_search ON messages USING gin (search);
CREATE UNIQUE INDEX messages_idempotency ON messages (sender_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Flags of one user on one message, stored only where they differ from the default.
-- Bits: see src/db/flags.ts.
CREATE TABLE message_flags (
  user_id     integer NOT NULL REFERENCES users(id),
  message_id  bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  flags       integer NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, message_id)
);
CREATE INDEX message_flags_message ON message_flags (message_id);
CREATE INDEX message_flags_starred ON message_flags (user_id, message_id) WHERE (flags & 2) <> 0;

CREATE TABLE reactions (
  id             bigserial PRIMARY KEY,
  message_id     bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  user_id        integer NOT NULL REFERENCES users(id),
  emoji_name     text NOT NULL,
  emoji_code     text NOT NULL,
  reaction_type  text NOT NULL,
  UNIQUE (message_id, user_id, reaction_type, emoji_code)
);

CREATE TABLE user_topics (
  user_id            integer NOT NULL REFERENCES users(id),
  stream_id          integer NOT NULL REFERENCES streams(id),
  topic_name         text NOT NULL,
  visibility_policy  smallint NOT NULL,
  last_updated       timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX user_topics_key ON user_topics (user_id, stream_id, lower(topic_name));
