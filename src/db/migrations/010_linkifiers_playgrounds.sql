-- Realm linkifiers (patterns turned into links in messages and topics) and code playgrounds
-- (where clients open code blocks of a language).
CREATE TABLE realm_linkifiers (
  id            serial PRIMARY KEY,
  realm_id      integer NOT NULL REFERENCES realms(id),
  pattern       text NOT NULL,
  url_template  text NOT NULL,
  sort_order    integer NOT NULL DEFAULT 0   -- applied in this order; earlier ones win overlaps
);
CREATE UNIQUE INDEX realm_linkifiers_realm_pattern ON realm_linkifiers (realm_id, pattern);

CREATE TABLE realm_playgrounds (
  id                 serial PRIMARY KEY,
  realm_id           integer NOT NULL REFERENCES realms(id),
  name               text NOT NULL,
  pygments_language  text NOT NULL,
  url_template       text NOT NULL
);
CREATE UNIQUE INDEX realm_playgrounds_realm_language_name ON realm_playgrounds (realm_id, pygments_language, name);
