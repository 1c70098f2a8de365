-- Changes written by other processes (the admin CLI) that realm actors must pick up.
CREATE TABLE realm_changes (
  id          bigserial PRIMARY KEY,
  realm_id    integer NOT NULL REFERENCES realms(id),
  kind        text NOT NULL,
  object_id   integer,
  created_at  timestamptz NOT NULL DEFAULT now()
);
