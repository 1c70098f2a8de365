// The organization settings part of POST /register (fetch type `realm`): every realm
// property as `realm_<name>`, every permission setting as a group-setting value, and the
// configuration of permission settings clients use to build their settings UI.
import type { RealmActor } from '../realm/actor.js';
import { fakeEmailDomain } from '../http/urls.js';
import { formatGroupSetting, systemGroup } from '../permissions/groups.js';
import { USER_GROUP_SETTINGS, type PermissionConfig } from '../permissions/groupPermissions.js';
import { REALM_PERMISSION_SETTINGS, REALM_PROPERTIES, REALM_USER_DEFAULTS } from '../permissions/realmDefaults.js';
import { realmGroupSetting } from '../permissions/realmSettings.js';
import { CHANNEL_GROUP_SETTINGS } from '../permissions/channelSettings.js';

function describeConfig(c: PermissionConfig, defaultForSystemGroups: string | null = null) {
  return {
    require_system_group: c.requireSystemGroup,
    allow_internet_group: c.allowInternet,
    allow_nobody_group: c.allowNobody,
    allow_everyone_group: c.allowEveryone,
    default_group_name: c.defaultGroup,
    default_for_system_groups: defaultForSystemGroups,
    allowed_system_groups: c.allowedSystemGroups ?? [],
  };
}

export function supportedPermissionSettings() {
  const stream: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(CHANNEL_GROUP_SETTINGS)) {
    stream[name] = {
      require_system_group: false,
      allow_internet_group: false,
      allow_nobody_group: true,
      allow_everyone_group: def.allowEveryone,
      default_group_name: def.defaultGroup,
      default_for_system_groups: null,
      allowed_system_groups: [],
    };
  }
  return {
    realm: Object.fromEntries(Object.entries(REALM_PERMISSION_SETTINGS).map(([k, c]) => [k, describeConfig(c)])),
    stream,
    group: Object.fromEntries(Object.entries(USER_GROUP_SETTINGS).map(([k, c]) => [k, describeConfig(c, 'role:nobody')])),
  };
}

/** The integer policies Zulip's group settings replaced, by the system group each meant. */
const COMMON_POLICIES: Record<string, number> = { 'role:members': 1, 'role:administrators': 2, 'role:fullmembers': 3, 'role:moderators': 4 };
const WEB_PUBLIC_POLICIES: Record<string, number> = { 'role:administrators': 2, 'role:moderators': 4, 'role:nobody': 6, 'role:owners': 7 };
const WILDCARD_MENTION_POLICIES: Record<string, number> = {
  'role:everyone': 1, 'role:members': 2, 'role:fullmembers': 3, 'role:administrators': 5, 'role:nobody': 6, 'role:moderators': 7,
};

/**
 * A deprecated policy key register still sends: the policy of the system group the setting
 * names, or (a group no policy meant) the fallback Zulip uses, the widest role-based one.
 */
function legacyPolicy(actor: RealmActor, setting: string, policies: Record<string, number>, fallback: number): number {
  const value = realmGroupSetting(actor.state, setting);
  for (const [groupName, policy] of Object.entries(policies)) {
    if (value === systemGroup(actor.state, groupName).id) return policy;
  }
  return fallback;
}

export function realmSettingsState(actor: RealmActor): Record<string, unknown> {
  const state = actor.state;
  const out: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(REALM_PROPERTIES)) {
    const stored = actor.realm.settings[name];
    out[`realm_${name}`] = stored === undefined ? def.default : stored;
  }
  for (const name of Object.keys(REALM_PERMISSION_SETTINGS)) {
    out[`realm_${name}`] = formatGroupSetting(state, realmGroupSetting(state, name));
  }
  // Keys of settings Zulip replaced, derived from their replacements as Zulip derives them
  // (clients keep them from the replacements' events). A realm that stored only the old
  // setting keeps its meaning.
  const stored = actor.realm.settings;
  const historyPolicy = stored.message_edit_history_visibility_policy ?? (stored.allow_edit_history === false ? 'none' : 'all');
  const topicsPolicy = stored.topics_policy ?? (stored.mandatory_topics === true ? 'disable_empty_topic' : 'allow_empty_topic');
  out.realm_message_edit_history_visibility_policy = historyPolicy;
  out.realm_allow_edit_history = historyPolicy !== 'none';
  out.realm_topics_policy = topicsPolicy;
  out.realm_mandatory_topics = topicsPolicy === 'disable_empty_topic';
  out.realm_create_public_stream_policy = legacyPolicy(actor, 'can_create_public_channel_group', COMMON_POLICIES, 1);
  out.realm_create_private_stream_policy = legacyPolicy(actor, 'can_create_private_channel_group', COMMON_POLICIES, 1);
  out.realm_create_web_public_stream_policy = legacyPolicy(actor, 'can_create_web_public_channel_group', WEB_PUBLIC_POLICIES, 4);
  out.realm_wildcard_mention_policy = legacyPolicy(actor, 'can_mention_many_users_group', WILDCARD_MENTION_POLICIES, 1);
  out.realm_bot_domain = fakeEmailDomain(actor.services.config, actor.realm);
  out.server_supported_permission_settings = supportedPermissionSettings();
  return out;
}

/** Register section `realm_user_settings_defaults`. */
export function realmUserSettingsDefaultsState(actor: RealmActor): Record<string, unknown> {
  const stored = (actor.realm.settings.user_settings_defaults as object | undefined) ?? {};
  return { realm_user_settings_defaults: { ...REALM_USER_DEFAULTS, ...stored } };
}
