// Permission settings whose value is a group-setting value: what each setting accepts, how a
// value a client sends is checked and normalized, and whether a user holds the permission.
// Shared by realm settings, user groups' own settings and (for the channel code) channels.
import { z } from 'zod';
import { ApiError, badRequest } from '../model/errors.js';
import type { RealmState } from '../model/realmState.js';
import type { User, UserGroup } from '../model/types.js';
import { Role } from '../model/types.js';
import { formatGroupSetting, systemGroup, userInGroupSetting, type GroupSettingValue } from './groups.js';

export interface PermissionConfig {
  /** Name of the system group the setting starts as, or "group_creator". */
  defaultGroup: string;
  requireSystemGroup: boolean;
  allowInternet: boolean;
  allowNobody: boolean;
  /** false also means guests never hold the permission, whatever the value. */
  allowEveryone: boolean;
  allowOwners: boolean;
  allowedSystemGroups?: string[];
}

const groupId = z.number().int().safe();

/** The wire form of a group-setting value. */
export const groupSettingValueSchema = z.union([
  groupId,
  z.object({
    direct_members: z.array(groupId).default([]),
    direct_subgroups: z.array(groupId).default([]),
  }),
]);

/** The wire form of a change: `{new, old?}`. */
export const groupSettingChangeSchema = z.object({
  new: groupSettingValueSchema,
  old: groupSettingValueSchema.optional(),
});

export type GroupSettingChange = z.infer<typeof groupSettingChangeSchema>;

export const expectationMismatch = () =>
  new ApiError('EXPECTATION_MISMATCH', "'old' value does not match the expected value.", 400);

/**
 * Zulip's canonical form: an anonymous group of exactly one subgroup is that group's id, and
 * an empty anonymous group is role:nobody.
 */
export function canonicalGroupSetting(state: RealmState, value: GroupSettingValue): GroupSettingValue {
  if (typeof value === 'number') return value;
  const members = [...new Set(value.direct_members)].sort((a, b) => a - b);
  const subgroups = [...new Set(value.direct_subgroups)].sort((a, b) => a - b);
  if (members.length === 0 && subgroups.length === 1) return subgroups[0]!;
  if (members.length === 0 && subgroups.length === 0) return systemGroup(state, 'role:nobody').id;
  return { direct_members: members, direct_subgroups: subgroups };
}

/** Equality of two values as the API shows them (deactivated members do not count). */
export function sameGroupSetting(state: RealmState, a: GroupSettingValue, b: GroupSettingValue): boolean {
  const x = canonicalGroupSetting(state, formatGroupSetting(state, a));
  const y = canonicalGroupSetting(state, formatGroupSetting(state, b));
  if (typeof x === 'number' || typeof y === 'number') return x === y;
  return (
    x.direct_members.length === y.direct_members.length &&
    x.direct_members.every((id, i) => id === y.direct_members[i]) &&
    x.direct_subgroups.length === y.direct_subgroups.length &&
    x.direct_subgroups.every((id, i) => id === y.direct_subgroups[i])
  );
}

/** A group usable as (part of) a setting value: exists in this realm and is active. */
export function groupForSetting(state: RealmState, id: number): UserGroup {
  const group = state.groups.get(id);
  if (!group) throw badRequest(`Invalid user group ID: ${id}`);
  if (group.deactivated) throw badRequest('User group is deactivated.');
  return group;
}

function checkSystemGroupRules(name: string, group: UserGroup, config: PermissionConfig): void {
  if (config.requireSystemGroup && !group.isSystemGroup) {
    throw new ApiError('SYSTEM_GROUP_REQUIRED', `'${name}' must be a system user group.`, 400);
  }
  if (!group.isSystemGroup) return;
  const refuse = () => badRequest(`'${name}' setting cannot be set to '${group.name}' group.`);
  if (!config.allowInternet && group.name === 'role:internet') throw refuse();
  if (!config.allowNobody && group.name === 'role:nobody') throw refuse();
  if (!config.allowEveryone && group.name === 'role:everyone') throw refuse();
  if (!config.allowOwners && group.name === 'role:owners') throw refuse();
  if (config.allowedSystemGroups && !config.allowedSystemGroups.includes(group.name)) throw refuse();
}

/**
 * Checks a value a client sent for a setting and returns its canonical form. Ids of users
 * and groups are resolved in this realm only; deactivated users and groups are refused.
 */
export function checkGroupSettingValue(
  state: RealmState,
  name: string,
  raw: GroupSettingValue,
  config: PermissionConfig,
): GroupSettingValue {
  const value = canonicalGroupSetting(state, raw);
  if (typeof value === 'number') {
    checkSystemGroupRules(name, groupForSetting(state, value), config);
    return value;
  }
  if (config.requireSystemGroup) {
    throw new ApiError('SYSTEM_GROUP_REQUIRED', `'${name}' must be a system user group.`, 400);
  }
  for (const id of value.direct_members) {
    const user = state.users.get(id);
    if (!user || !user.isActive) throw badRequest(`Invalid user ID: ${id}`);
  }
  for (const id of value.direct_subgroups) groupForSetting(state, id);
  return value;
}

/**
 * Applies a `{new, old}` change: EXPECTATION_MISMATCH when `old` is stale; returns the new
 * canonical value, or null when nothing changes.
 */
export function applyGroupSettingChange(
  state: RealmState,
  name: string,
  current: GroupSettingValue,
  change: GroupSettingChange,
  config: PermissionConfig,
): GroupSettingValue | null {
  if (change.old !== undefined && !sameGroupSetting(state, current, canonicalGroupSetting(state, change.old))) {
    throw expectationMismatch();
  }
  const next = checkGroupSettingValue(state, name, change.new, config);
  return sameGroupSetting(state, current, next) ? null : next;
}

/** Whether a user holds a permission; guests never hold those closed to role:everyone. */
export function hasGroupPermission(state: RealmState, user: User, value: GroupSettingValue, config: PermissionConfig): boolean {
  if (!user.isActive) return false;
  if (!config.allowEveryone && user.role === Role.GUEST) return false;
  return userInGroupSetting(state, user, value);
}

/** Whether a value names a group, directly or as a direct subgroup of an anonymous value. */
export function settingUsesGroup(value: unknown, groupIdToFind: number): boolean {
  if (typeof value === 'number') return value === groupIdToFind;
  if (value && typeof value === 'object' && Array.isArray((value as { direct_subgroups?: unknown }).direct_subgroups)) {
    return (value as { direct_subgroups: number[] }).direct_subgroups.includes(groupIdToFind);
  }
  return false;
}

/** The permission settings of a user group itself (Zulip's NamedUserGroup settings). */
export const USER_GROUP_SETTINGS: Record<string, PermissionConfig> = {
  can_add_members_group: { defaultGroup: 'group_creator', requireSystemGroup: false, allowInternet: false, allowNobody: true, allowEveryone: false, allowOwners: true },
  can_join_group: { defaultGroup: 'role:nobody', requireSystemGroup: false, allowInternet: false, allowNobody: true, allowEveryone: false, allowOwners: true },
  can_leave_group: { defaultGroup: 'role:everyone', requireSystemGroup: false, allowInternet: false, allowNobody: true, allowEveryone: true, allowOwners: true },
  can_manage_group: { defaultGroup: 'group_creator', requireSystemGroup: false, allowInternet: false, allowNobody: true, allowEveryone: false, allowOwners: true },
  can_mention_group: { defaultGroup: 'role:everyone', requireSystemGroup: false, allowInternet: false, allowNobody: true, allowEveryone: true, allowOwners: false },
  can_remove_members_group: { defaultGroup: 'role:nobody', requireSystemGroup: false, allowInternet: false, allowNobody: true, allowEveryone: false, allowOwners: true },
};
