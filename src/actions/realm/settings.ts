// Organization settings (PATCH /realm, PATCH /realm/user_settings_defaults) and the role
// checks organization administration shares.
import { badRequest, mustBeOwner } from '../../model/errors.js';
import { actingUser, requireAdmin } from '../../permissions/roles.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import type { RealmActor } from '../../realm/actor.js';
import { DEFAULT_USER_SETTINGS, Role, type User } from '../../model/types.js';
import { REALM_DEFAULT_SETTING_NAMES, checkSettingValue, type SettingValue } from '../../model/userSettings.js';
import { saveRealmSettings } from '../../db/organization.js';
import { formatGroupSetting, type GroupSettingValue } from '../../permissions/groups.js';
import { applyGroupSettingChange, type GroupSettingChange } from '../../permissions/groupPermissions.js';
import { OWNER_ONLY_PERMISSION_SETTINGS, REALM_PERMISSION_SETTINGS, REALM_PROPERTIES, REALM_USER_DEFAULTS, storedUserDefaults } from '../../permissions/realmDefaults.js';
import { realmGroupSetting } from '../../permissions/realmSettings.js';
import { realmUpdateEvent, realmUpdateDictEvent, realmUserSettingsDefaultsEvent, userGroupMembersEvent } from '../../events/catalog/index.js';
import { directMemberIds } from '../../views/groups.js';
import { systemGroup } from '../../permissions/groups.js';

export interface RealmUpdate {
  name?: string;
  description?: string;
  properties: Record<string, unknown>;
  groupSettings: Record<string, GroupSettingChange>;
}

function checkStreamSetting(actor: RealmActor, name: string, value: unknown): void {
  if (!(name.endsWith('_stream_id') || name.endsWith('_channel_id')) || value === -1) return;
  const stream = actor.state.streams.get(value as number);
  if (!stream || stream.isArchived) throw badRequest('Invalid channel ID');
  // Reports quote the reported messages: only a private channel may receive them.
  if (name === 'moderation_request_channel_id' && !stream.inviteOnly) throw badRequest('Moderation request channel must be private.');
}

/** PATCH /realm: administrators; some settings need an owner. Unchanged values are skipped. */
export function updateRealm(actor: RealmActor, acting: User, update: RealmUpdate): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireAdmin(user);
    const isOwner = user.role === Role.OWNER;
    const state = actor.state;

    const changedProps: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(withLegacyAliases(update.properties))) {
      const def = REALM_PROPERTIES[name];
      if (!def) continue;
      if (def.ownerOnly && !isOwner) throw mustBeOwner();
      checkStreamSetting(actor, name, value);
      if (realmProperty(actor.state, name) !== value) changedProps[name] = value;
    }
    const changedGroups: Record<string, GroupSettingValue> = {};
    for (const [name, change] of Object.entries(update.groupSettings)) {
      const config = REALM_PERMISSION_SETTINGS[name]!;
      if (OWNER_ONLY_PERMISSION_SETTINGS.has(name) && !isOwner) throw mustBeOwner();
      const next = applyGroupSettingChange(state, name, realmGroupSetting(state, name), change, config);
      if (next !== null) changedGroups[name] = next;
    }
    const name = update.name !== undefined && update.name !== actor.realm.name ? update.name : undefined;
    const description =
      update.description !== undefined && update.description !== actor.realm.description ? update.description : undefined;
    if (name === undefined && description === undefined && !Object.keys(changedProps).length && !Object.keys(changedGroups).length) return;

    const settings = { ...changedProps, ...changedGroups };
    const fullMembersBefore = changedProps.waiting_period_threshold !== undefined ? fullMemberIds(actor) : null;
    await saveRealmSettings(actor.sql, actor.realm.id, {
      name: name ?? actor.realm.name,
      description: description ?? actor.realm.description,
      settings,
    });
    state.realm = {
      ...actor.realm,
      name: name ?? actor.realm.name,
      description: description ?? actor.realm.description,
      settings: { ...actor.realm.settings, ...settings },
    };

    const everyone = state.activeUsers().map((u) => u.id);
    if (name !== undefined) actor.events.publish(realmUpdateEvent('name', name), everyone);
    if (description !== undefined) {
      actor.events.publish(realmUpdateEvent('description', description), everyone);
    }
    for (const [prop, value] of Object.entries(changedProps)) {
      actor.events.publish(propertyEvent(prop, value), everyone);
    }
    if (fullMembersBefore) publishFullMemberChanges(actor, fullMembersBefore);
    if (Object.keys(changedGroups).length) {
      const data = Object.fromEntries(Object.entries(changedGroups).map(([k, v]) => [k, formatGroupSetting(state, v)]));
      actor.events.publish(realmUpdateDictEvent(data), everyone);
    }
  });
}

/**
 * Settings Zulip replaced, accepted under their old names: `allow_edit_history` stands for
 * message_edit_history_visibility_policy "all" / "none" (feature level 358), `mandatory_topics`
 * for topics_policy "disable_empty_topic" / "allow_empty_topic" (feature level 392). Register
 * derives the old keys from the new settings, so only the new ones are stored.
 */
function withLegacyAliases(properties: Record<string, unknown>): Record<string, unknown> {
  const out = { ...properties };
  if (typeof out.allow_edit_history === 'boolean') {
    out.message_edit_history_visibility_policy ??= out.allow_edit_history ? 'all' : 'none';
  }
  if (typeof out.mandatory_topics === 'boolean') {
    out.topics_policy ??= out.mandatory_topics ? 'disable_empty_topic' : 'allow_empty_topic';
  }
  delete out.allow_edit_history;
  delete out.mandatory_topics;
  return out;
}

/** The event of one changed property, in the form Zulip's do_set_realm_property sends. */
function propertyEvent(prop: string, value: unknown) {
  // The topics policy carries the old mandatory_topics along.
  if (prop === 'topics_policy') return realmUpdateDictEvent({ topics_policy: value, mandatory_topics: value === 'disable_empty_topic' });
  return REALM_PROPERTIES[prop]!.event === 'update_dict' ? realmUpdateDictEvent({ [prop]: value }) : realmUpdateEvent(prop, value);
}

function fullMemberIds(actor: RealmActor): Set<number> {
  return new Set(directMemberIds(actor.state, systemGroup(actor.state, 'role:fullmembers')));
}

/** The waiting period decides who is a full member: clients keep that group's membership. */
function publishFullMemberChanges(actor: RealmActor, before: Set<number>): void {
  const after = fullMemberIds(actor);
  const groupId = systemGroup(actor.state, 'role:fullmembers').id;
  const everyone = actor.state.activeUsers().map((u) => u.id);
  const removed = [...before].filter((id) => !after.has(id)).sort((a, b) => a - b);
  const added = [...after].filter((id) => !before.has(id)).sort((a, b) => a - b);
  if (removed.length) actor.events.publish(userGroupMembersEvent('remove_members', groupId, removed), everyone);
  if (added.length) actor.events.publish(userGroupMembersEvent('add_members', groupId, added), everyone);
}

/** Defaults for accounts the realm creates from now on. */
export function realmUserDefault(actor: RealmActor, name: keyof typeof REALM_USER_DEFAULTS): number {
  const stored = storedUserDefaults(actor.realm.settings)[name];
  return typeof stored === 'number' ? stored : REALM_USER_DEFAULTS[name];
}

/**
 * PATCH /realm/user_settings_defaults: administrators. Every value is checked before
 * anything changes; one realm_user_settings_defaults event per changed setting.
 */
export function updateRealmUserDefaults(actor: RealmActor, acting: User, changes: Record<string, unknown>): Promise<void> {
  for (const [name, value] of Object.entries(changes)) {
    if (!REALM_DEFAULT_SETTING_NAMES.includes(name)) throw badRequest(`Invalid ${name}`);
    const problem = checkSettingValue(name, value);
    if (problem) throw badRequest(problem);
  }
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const current = storedUserDefaults(actor.realm.settings);
    const effective = (name: string) => current[name] ?? DEFAULT_USER_SETTINGS[name];
    const changed = Object.entries(changes).filter(([k, v]) => v !== undefined && effective(k) !== v) as [string, SettingValue][];
    if (!changed.length) return;
    const next = { ...current, ...Object.fromEntries(changed) };
    await saveRealmSettings(actor.sql, actor.realm.id, {
      name: actor.realm.name,
      description: actor.realm.description,
      settings: { user_settings_defaults: next },
    });
    actor.state.realm = { ...actor.realm, settings: { ...actor.realm.settings, user_settings_defaults: next } };
    const everyone = actor.state.activeUsers().map((u) => u.id);
    for (const [property, value] of changed) {
      actor.events.publish(realmUserSettingsDefaultsEvent(property, value), everyone);
    }
  });
}
