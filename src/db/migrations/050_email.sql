-- Email: the outbox of outgoing mail, email invitations, missed-message batches, and the
-- addresses of the incoming gateway.

-- Every outgoing email is a row before it is a job: a job lost with a restart is queued again
-- by the sweep, and a retried job never sends a row twice (sent_at, claimed_until).
CREATE TABLE email_outbox (
  id             bigserial PRIMARY KEY,
  realm_id       integer REFERENCES realms(id) ON DELETE CASCADE,
  kind           text NOT NULL,
  to_address     text NOT NULL,
  from_name      text NOT NULL,
  reply_to       text,
  subject        text NOT NULL,
  text_body      text NOT NULL,
  html_body      text NOT NULL,
  message_id     text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  claimed_until  timestamptz,
  attempts       integer NOT NULL DEFAULT 0,
  last_error     text,
  sent_at        timestamptz,
  failed_at      timestamptz
);
CREATE INDEX email_outbox_pending ON email_outbox (created_at) WHERE sent_at IS NULL AND failed_at IS NULL;

-- Invitations by email (Zulip's PreregistrationUser); status 0 pending, 1 used, 2 revoked.
CREATE TABLE email_invites (
  id                                   serial PRIMARY KEY,
  realm_id                             integer NOT NULL REFERENCES realms(id),
  email                                text NOT NULL,
  invite_key                           text NOT NULL UNIQUE,
  referred_by                          integer NOT NULL REFERENCES users(id),
  invited_as                           smallint NOT NULL,
  stream_ids                           integer[] NOT NULL DEFAULT '{}',
  group_ids                            integer[] NOT NULL DEFAULT '{}',
  include_realm_default_subscriptions  boolean NOT NULL DEFAULT false,
  notify_referrer_on_join              boolean NOT NULL DEFAULT true,
  welcome_message_custom_text          text,
  invited_at                           timestamptz NOT NULL DEFAULT now(),
  expires_at                           timestamptz,
  status                               smallint NOT NULL DEFAULT 0
);
CREATE INDEX email_invites_realm ON email_invites (realm_id) WHERE status = 0;

-- Each invitation email sent (first send and resends), for the per-day limit.
CREATE TABLE invitation_sends (
  realm_id  integer NOT NULL REFERENCES realms(id),
  sent_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitation_sends_realm ON invitation_sends (realm_id, sent_at);

-- Messages waiting for a user's next missed-message email (one email per batching period).
CREATE TABLE missed_message_pending (
  realm_id    integer NOT NULL REFERENCES realms(id),
  user_id     integer NOT NULL REFERENCES users(id),
  message_id  bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  trigger     text NOT NULL,
  due_at      timestamptz NOT NULL,
  PRIMARY KEY (user_id, message_id)
);
CREATE INDEX missed_message_pending_due ON missed_message_pending (due_at);

-- Reply-To addresses of missed-message emails: a reply posts into the message's conversation
-- as the user the email was sent to.
CREATE TABLE missed_message_addresses (
  token       text PRIMARY KEY,
  realm_id    integer NOT NULL REFERENCES realms(id),
  user_id     integer NOT NULL REFERENCES users(id),
  message_id  bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- A channel's gateway address, one per (channel, creator, sender) as Zulip's ChannelEmailAddress.
CREATE TABLE channel_email_addresses (
  id           serial PRIMARY KEY,
  realm_id     integer NOT NULL REFERENCES realms(id),
  stream_id    integer NOT NULL REFERENCES streams(id),
  creator_id   integer NOT NULL REFERENCES users(id),
  sender_id    integer NOT NULL REFERENCES users(id),
  email_token  text NOT NULL UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream_id, creator_id, sender_id)
);

-- Email address changes waiting for their confirmation link (status 0 pending, 1 done).
CREATE TABLE email_changes (
  confirm_key  text PRIMARY KEY,
  realm_id     integer NOT NULL REFERENCES realms(id),
  user_id      integer NOT NULL REFERENCES users(id),
  old_email    text NOT NULL,
  new_email    text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL,
  status       smallint NOT NULL DEFAULT 0
);
