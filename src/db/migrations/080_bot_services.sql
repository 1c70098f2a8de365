-- Services of outgoing webhook bots: where the server POSTs the messages that mention the bot
-- (or are sent to it), in which format, and the token that lets the service check the caller.
CREATE TABLE bot_services (
  bot_id     integer PRIMARY KEY REFERENCES users(id),
  name       text NOT NULL,
  base_url   text NOT NULL,
  interface  smallint NOT NULL,   -- 1 generic (Zulip's format), 2 Slack-compatible
  token      text NOT NULL
);
