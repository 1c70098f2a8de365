-- Organization administration: channel folders, custom profile fields and users' values,
-- reusable invitation links, bot settings, and mobile push registrations.
CREATE TABLE channel_folders (
  id                    serial PRIMARY KEY,
  realm_id              integer NOT NULL REFERENCES realms(id),
  name                  text NOT NULL,
  description           text NOT NULL DEFAULT '',
  rendered_description  text NOT NULL DEFAULT '',
  sort_order            integer NOT NULL DEFAULT 0,
  date_created          timestamptz NOT NULL DEFAULT now(),
  creator_id            integer REFERENCES users(id),
  is_archived           boolean NOT NULL DEFAULT false
);
CREATE UNIQUE INDEX channel_folders_realm_name ON channel_folders (realm_id, lower(name));

CREATE TABLE custom_profile_fields (
  id                          serial PRIMARY KEY,
  realm_id                    integer NOT NULL REFERENCES realms(id),
  name                        text NOT NULL,
  hint                        text NOT NULL DEFAULT '',
  field_type                  smallint NOT NULL,
  field_data                  text NOT NULL DEFAULT '',   -- JSON text, as the API shows it
  sort_order                  integer NOT NULL DEFAULT 0,
  display_in_profile_summary  boolean NOT NULL DEFAULT false,
  required                    boolean NOT NULL DEFAULT false,
  editable_by_user            boolean NOT NULL DEFAULT true
);
CREATE UNIQUE INDEX custom_profile_fields_realm_name ON custom_profile_fields (realm_id, lower(name));

CREATE TABLE custom_profile_field_values (
  field_id        integer NOT NULL REFERENCES custom_profile_fields(id) ON DELETE CASCADE,
  user_id         integer NOT NULL REFERENCES users(id),
  value           text NOT NULL,
  rendered_value  text,
  PRIMARY KEY (field_id, user_id)
);

CREATE TABLE multiuse_invites (
  id                                   serial PRIMARY KEY,
  realm_id                             integer NOT NULL REFERENCES realms(id),
  invite_key                           text NOT NULL UNIQUE,
  referred_by                          integer NOT NULL REFERENCES users(id),
  invited_as                           smallint NOT NULL,
  stream_ids                           integer[] NOT NULL DEFAULT '{}',
  group_ids                            integer[] NOT NULL DEFAULT '{}',
  include_realm_default_subscriptions  boolean NOT NULL DEFAULT false,
  welcome_message_custom_text          text,
  created_at                           timestamptz NOT NULL DEFAULT now(),
  expires_at                           timestamptz,            -- NULL: never expires
  revoked                              boolean NOT NULL DEFAULT false
);
CREATE INDEX multiuse_invites_realm ON multiuse_invites (realm_id);

CREATE TABLE bot_settings (
  user_id                            integer PRIMARY KEY REFERENCES users(id),
  default_sending_stream_id          integer REFERENCES streams(id),
  default_events_register_stream_id  integer REFERENCES streams(id),
  default_all_public_streams         boolean NOT NULL DEFAULT false
);

-- End-to-end encrypted registrations (POST /mobile_push/register).
CREATE TABLE push_devices (
  id                           serial PRIMARY KEY,
  realm_id                     integer NOT NULL REFERENCES realms(id),
  user_id                      integer NOT NULL REFERENCES users(id),
  token_kind                   text NOT NULL CHECK (token_kind IN ('fcm', 'apns')),
  push_account_id              bigint NOT NULL,
  push_public_key              text NOT NULL,
  bouncer_public_key           text NOT NULL,
  encrypted_push_registration  text NOT NULL,
  created_at                   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, push_account_id)
);

-- Legacy device tokens (POST /users/me/apns_device_token, /users/me/android_gcm_reg_id).
CREATE TABLE push_device_tokens (
  id          serial PRIMARY KEY,
  realm_id    integer NOT NULL REFERENCES realms(id),
  user_id     integer NOT NULL REFERENCES users(id),
  kind        text NOT NULL CHECK (kind IN ('apns', 'gcm')),
  token       text NOT NULL,
  ios_app_id  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, kind, token)
);
