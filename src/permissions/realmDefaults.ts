// Realm-level settings: which permission settings exist, what they default to and which
// group-setting values each accepts (Zulip's Realm.REALM_PERMISSION_GROUP_SETTINGS), and the
// defaults and types of the other organization settings PATCH /realm changes.
import type { PermissionConfig } from './groupPermissions.js';
import { REALM_DEFAULT_SETTING_NAMES, type SettingValue } from '../model/userSettings.js';

const restricted = (defaultGroup: string, extra: Partial<PermissionConfig> = {}): PermissionConfig => ({
  defaultGroup,
  requireSystemGroup: false,
  allowInternet: false,
  allowNobody: true,
  allowEveryone: false,
  allowOwners: true,
  ...extra,
});

const open = (defaultGroup: string, extra: Partial<PermissionConfig> = {}): PermissionConfig =>
  restricted(defaultGroup, { allowEveryone: true, ...extra });

export const REALM_PERMISSION_SETTINGS: Record<string, PermissionConfig> = {
  can_access_all_users_group: open('role:everyone', {
    requireSystemGroup: true,
    allowNobody: false,
    allowedSystemGroups: ['role:everyone', 'role:members'],
  }),
  can_add_custom_emoji_group: restricted('role:members'),
  can_add_subscribers_group: restricted('role:members'),
  can_create_bots_group: restricted('role:members'),
  can_create_groups: restricted('role:members'),
  can_create_private_channel_group: restricted('role:members'),
  can_create_public_channel_group: restricted('role:members'),
  can_create_web_public_channel_group: restricted('role:owners', {
    requireSystemGroup: true,
    allowedSystemGroups: ['role:moderators', 'role:administrators', 'role:owners', 'role:nobody'],
  }),
  can_create_write_only_bots_group: restricted('role:members'),
  can_delete_any_message_group: restricted('role:administrators'),
  can_delete_own_message_group: open('role:everyone'),
  can_invite_users_group: restricted('role:members'),
  can_manage_all_groups: restricted('role:owners'),
  can_manage_billing_group: restricted('role:administrators'),
  can_mention_many_users_group: open('role:administrators'),
  can_move_messages_between_channels_group: restricted('role:members'),
  can_move_messages_between_topics_group: open('role:everyone'),
  can_resolve_topics_group: open('role:everyone'),
  can_set_topics_policy_group: restricted('role:members'),
  can_summarize_topics_group: open('role:everyone'),
  create_multiuse_invite_group: restricted('role:administrators'),
  direct_message_initiator_group: open('role:everyone'),
  direct_message_permission_group: open('role:everyone'),
};

/** Permission settings only organization owners may change (Zulip's owner-only list). */
export const OWNER_ONLY_PERMISSION_SETTINGS = new Set([
  'create_multiuse_invite_group',
  'can_invite_users_group',
  'can_create_groups',
  'can_manage_all_groups',
]);

/** How one non-group realm setting is validated and what it defaults to. */
export interface RealmPropertyDef {
  default: unknown;
  ownerOnly?: boolean;
  /** "update" events carry {property, value}; "update_dict" ones {property: "default", data}. */
  event: 'update' | 'update_dict';
}

const prop = (d: unknown, extra: Partial<RealmPropertyDef> = {}): RealmPropertyDef => ({ default: d, event: 'update', ...extra });

export const REALM_PROPERTIES: Record<string, RealmPropertyDef> = {
  allow_edit_history: prop(true),
  allow_message_editing: prop(true, { event: 'update_dict' }),
  avatar_changes_disabled: prop(false),
  default_code_block_language: prop(''),
  default_language: prop('en'),
  digest_emails_enabled: prop(false),
  digest_weekday: prop(1),
  disallow_disposable_email_addresses: prop(true, { ownerOnly: true }),
  email_changes_disabled: prop(false),
  emails_restricted_to_domains: prop(false, { ownerOnly: true }),
  enable_guest_user_dm_warning: prop(true),
  enable_guest_user_indicator: prop(true),
  enable_read_receipts: prop(false),
  enable_spectator_access: prop(false),
  giphy_rating: prop(2),
  inline_image_preview: prop(true),
  inline_url_embed_preview: prop(false),
  invite_required: prop(true, { ownerOnly: true }),
  mandatory_topics: prop(false),
  message_content_allowed_in_email_notifications: prop(true),
  message_content_delete_limit_seconds: prop(600, { event: 'update_dict' }),
  message_content_edit_limit_seconds: prop(600, { event: 'update_dict' }),
  message_edit_history_visibility_policy: prop('all'),
  message_retention_days: prop(-1, { ownerOnly: true }),
  move_messages_between_streams_limit_seconds: prop(604800, { event: 'update_dict' }),
  move_messages_within_stream_limit_seconds: prop(604800, { event: 'update_dict' }),
  moderation_request_channel_id: prop(-1),
  name_changes_disabled: prop(false),
  new_stream_announcements_stream_id: prop(-1),
  require_unique_names: prop(false),
  send_welcome_emails: prop(true),
  signup_announcements_stream_id: prop(-1),
  topics_policy: prop('allow_empty_topic'),
  video_chat_provider: prop(1),
  waiting_period_threshold: prop(0, { ownerOnly: true }),
  want_advertise_in_communities_directory: prop(false),
  zulip_update_announcements_stream_id: prop(-1),
};

/** Defaults applied to users the realm creates (PATCH /realm/user_settings_defaults). */
export const REALM_USER_DEFAULTS = {
  email_address_visibility: 1,
};

/** The stored defaults of new users' settings: REALM_USER_DEFAULTS under what the organization chose. */
export function storedUserDefaults(realmSettings: Record<string, unknown>): Record<string, SettingValue> {
  return { ...REALM_USER_DEFAULTS, ...(realmSettings.user_settings_defaults as Record<string, SettingValue> | undefined) };
}

/** The settings a new account starts with: every default the organization chose. */
export function newUserSettings(realmSettings: Record<string, unknown>): Record<string, SettingValue> {
  const out: Record<string, SettingValue> = {};
  for (const [name, value] of Object.entries(storedUserDefaults(realmSettings))) {
    if (REALM_DEFAULT_SETTING_NAMES.includes(name)) out[name] = value;
  }
  return out;
}

export const MAX_REALM_NAME_LENGTH = 40;
export const MAX_REALM_DESCRIPTION_LENGTH = 1000;
