// The realm's permission settings as group-setting values: the stored value, or the
// setting's default system group when the organization never changed it.
import type { RealmState } from '../model/realmState.js';
import type { User } from '../model/types.js';
import { systemGroup, type GroupSettingValue } from './groups.js';
import { hasGroupPermission } from './groupPermissions.js';
import { REALM_PERMISSION_SETTINGS, REALM_PROPERTIES } from './realmDefaults.js';

/** A realm property's current value: stored, or its default when the organization never set it. */
export function realmProperty(state: RealmState, name: string): unknown {
  const stored = state.realm.settings[name];
  return stored === undefined ? REALM_PROPERTIES[name]?.default : stored;
}

export function realmGroupSetting(state: RealmState, name: string): GroupSettingValue {
  const stored = state.realm.settings[name];
  if (typeof stored === 'number' || (stored && typeof stored === 'object')) return stored as GroupSettingValue;
  const config = REALM_PERMISSION_SETTINGS[name];
  if (!config) throw new Error(`unknown realm permission setting ${name}`);
  return systemGroup(state, config.defaultGroup).id;
}

/**
 * Whether a user holds a realm-level permission. Guests never hold those that cannot be
 * granted to role:everyone; deactivated users hold none.
 */
export function hasRealmPermission(state: RealmState, user: User, name: string): boolean {
  const config = REALM_PERMISSION_SETTINGS[name];
  if (!config) throw new Error(`unknown realm permission setting ${name}`);
  return hasGroupPermission(state, user, realmGroupSetting(state, name), config);
}
