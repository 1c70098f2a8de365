// Organization settings (PATCH /realm, PATCH /realm/user_settings_defaults) and the role
// checks organization administration shares.
import { badRequest, mustBeOwner } from '../../model/errors.js';
import { actingUser, requireAdmin } from '../../permissions/roles.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import type { RealmActor } from '../../realm/actor.js';
import { Role, type User } from '../../model/types.js';
import { saveRealmSettings } from '../../db/organization.js';
import { formatGroupSetting, type GroupSettingValue } from '../../permissions/groups.js';
import { applyGroupSettingChange, type GroupSettingChange } from '../../permissions/groupPermissions.js';
import { OWNER_ONLY_PERMISSION_SETTINGS, REALM_PERMISSION_SETTINGS, REALM_PROPERTIES, REALM_USER_DEFAULTS } from '../../permissions/realmDefaults.js';
import { realmGroupSetting } from '../../permissions/realmSettings.js';
import { realmUpdateEvent, realmUpdateDictEvent, realmUserSettingsDefaultsEvent } from '../../events/catalog/index.js';

export interface RealmUpdate {
  name?: string;
  description?: string;
  properties: Record<string, unknown>;
  groupSettings: Record<string, GroupSettingChange>;
}

function checkStreamSetting(actor: RealmActor, name: string, value: unknown): void {
  if (!name.endsWith('_stream_id') || value === -1) return;
  const stream = actor.state.streams.get(value as number);
  if (!stream || stream.isArchived) throw badRequest('Invalid channel ID');
}

/** PATCH /realm: administrators; some settings need an owner. Unchanged values are skipped. */
export function updateRealm(actor: RealmActor, acting: User, update: RealmUpdate): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireAdmin(user);
    const isOwner = user.role === Role.OWNER;
    const state = actor.state;

    const changedProps: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(update.properties)) {
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
      const event = REALM_PROPERTIES[prop]!.event === 'update_dict' ? realmUpdateDictEvent({ [prop]: value }) : realmUpdateEvent(prop, value);
      actor.events.publish(event, everyone);
    }
    if (Object.keys(changedGroups).length) {
      const data = Object.fromEntries(Object.entries(changedGroups).map(([k, v]) => [k, formatGroupSetting(state, v)]));
      actor.events.publish(realmUpdateDictEvent(data), everyone);
    }
  });
}

/** Defaults for accounts the realm creates from now on. */
export function realmUserDefault(actor: RealmActor, name: keyof typeof REALM_USER_DEFAULTS): number {
  const stored = (actor.realm.settings.user_settings_defaults as Record<string, unknown> | undefined)?.[name];
  return typeof stored === 'number' ? stored : REALM_USER_DEFAULTS[name];
}

/** PATCH /realm/user_settings_defaults: administrators. */
export function updateRealmUserDefaults(actor: RealmActor, acting: User, changes: Partial<typeof REALM_USER_DEFAULTS>): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const current = { ...REALM_USER_DEFAULTS, ...(actor.realm.settings.user_settings_defaults as object | undefined) };
    const changed = Object.entries(changes).filter(([k, v]) => v !== undefined && current[k as keyof typeof current] !== v);
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
      actor.events.publish(realmUserSettingsDefaultsEvent(property, value as string | number | boolean), everyone);
    }
  });
}
