// The organization settings part of POST /register (fetch type `realm`): every realm
// property as `realm_<name>`, every permission setting as a group-setting value, and the
// configuration of permission settings clients use to build their settings UI.
import type { RealmActor } from '../realm/actor.js';
import { fakeEmailDomain } from '../http/urls.js';
import { formatGroupSetting } from '../permissions/groups.js';
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
  out.realm_bot_domain = fakeEmailDomain(actor.services.config, actor.realm);
  out.server_supported_permission_settings = supportedPermissionSettings();
  return out;
}

/** Register section `realm_user_settings_defaults`. */
export function realmUserSettingsDefaultsState(actor: RealmActor): Record<string, unknown> {
  const stored = (actor.realm.settings.user_settings_defaults as object | undefined) ?? {};
  return { realm_user_settings_defaults: { ...REALM_USER_DEFAULTS, ...stored } };
}
