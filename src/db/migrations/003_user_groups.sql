-- User groups, including each realm's system groups (role:everyone, …). Membership of a
-- system group follows from users' roles and is not stored.
CREATE TABLE user_groups (
  id               serial PRIMARY KEY,
  realm_id         integer NOT NULL REFERENCES realms(id),
  name             text NOT NULL,
  description      text NOT NULL DEFAULT '',
  is_system_group  boolean NOT NULL DEFAULT false,
  deactivated      boolean NOT NULL DEFAULT false,
  date_created     timestamptz,
  creator_id       integer REFERENCES users(id),
  settings         jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE UNIQUE INDEX user_groups_realm_name ON user_groups (realm_id, name);

CREATE TABLE user_group_members (
  group_id  integer NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
  user_id   integer NOT NULL REFERENCES users(id),
  PRIMARY KEY (group_id, user_id)
);

CREATE TABLE user_group_subgroups (
  group_id     integer NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
  subgroup_id  integer NOT NULL REFERENCES user_groups(id),
  PRIMARY KEY (group_id, subgroup_id)
);
