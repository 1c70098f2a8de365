// Group membership and group-setting values. A group-setting value is a group id, or an
// anonymous group `{direct_members, direct_subgroups}`; membership is resolved through nested
// subgroups, and deactivated users are never members of anything.
import type { RealmState } from '../model/realmState.js';
import type { User, UserGroup } from '../model/types.js';
import { SYSTEM_GROUP_BY_NAME } from '../model/systemGroups.js';

export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

const DAY_MS = 24 * 3600 * 1000;

export function isFullMember(state: RealmState, user: User, now = Date.now()): boolean {
  const days = state.realm.settings.waiting_period_threshold;
  return now - user.dateJoined.getTime() >= days * DAY_MS;
}

/** Whether a user is a member of a group, directly or through its subgroups. */
export function userInGroup(state: RealmState, user: User, groupId: number, seen = new Set<number>()): boolean {
  if (!user.isActive || seen.has(groupId)) return false;
  seen.add(groupId);
  const group = state.groups.get(groupId);
  if (!group || group.deactivated) return false;
  if (group.isSystemGroup) {
    const def = SYSTEM_GROUP_BY_NAME.get(group.name);
    return def ? def.includes(user.role, isFullMember(state, user)) : false;
  }
  if (group.members.has(user.id)) return true;
  for (const sub of group.subgroups) if (userInGroup(state, user, sub, seen)) return true;
  return false;
}

export function userInGroupSetting(state: RealmState, user: User, value: GroupSettingValue): boolean {
  if (typeof value === 'number') return userInGroup(state, user, value);
  if (!user.isActive) return false;
  if (value.direct_members.includes(user.id)) return true;
  return value.direct_subgroups.some((g) => userInGroup(state, user, g));
}

/** Every active user in a group-setting value. */
export function usersInGroupSetting(state: RealmState, value: GroupSettingValue): User[] {
  return state.activeUsers().filter((u) => userInGroupSetting(state, u, value));
}

export function systemGroup(state: RealmState, name: string): UserGroup {
  const g = state.groupByName(name);
  if (!g || !g.isSystemGroup) throw new Error(`realm ${state.realm.id} lacks system group ${name}`);
  return g;
}

/** The API form of a value: anonymous groups list only active users. */
export function formatGroupSetting(state: RealmState, value: GroupSettingValue): GroupSettingValue {
  if (typeof value === 'number') return value;
  return {
    direct_members: value.direct_members.filter((id) => state.users.get(id)?.isActive),
    direct_subgroups: value.direct_subgroups,
  };
}
