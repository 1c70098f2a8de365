-- Alert words: words whose appearance in a message flags it for the user (has_alert_word).
CREATE TABLE alert_words (
  id        serial PRIMARY KEY,
  realm_id  integer NOT NULL REFERENCES realms(id),
  user_id   integer NOT NULL REFERENCES users(id),
  word      text NOT NULL
);
-- A word is stored once per user whatever its case.
CREATE UNIQUE INDEX alert_words_user_word ON alert_words (user_id, lower(word));
CREATE INDEX alert_words_realm ON alert_words (realm_id);
