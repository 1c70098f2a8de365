// User groups as the API shows them (notes §5 "User group"), and their membership resolved
// through subgroups. System groups keep no member rows: their direct members follow from
// roles, and they nest as Zulip nests them (owners ⊂ administrators ⊂ moderators ⊂
// full members ⊂ members ⊂ everyone ⊂ internet).
import type { RealmState } from '../model/realmState.js';
import { Role, type User, type UserGroup } from '../model/types.js';
import { formatGroupSetting, isFullMember, systemGroup, type GroupSettingValue } from '../permissions/groups.js';
import { USER_GROUP_SETTINGS } from '../permissions/groupPermissions.js';

const SYSTEM_NESTING: Record<string, { direct: (u: User, full: boolean) => boolean; subgroup: string | null }> = {
  'role:internet': { direct: () => false, subgroup: 'role:everyone' },
  'role:everyone': { direct: (u) => u.role === Role.GUEST, subgroup: 'role:members' },
  'role:members': { direct: (u) => u.role === Role.MEMBER, subgroup: 'role:fullmembers' },
  'role:fullmembers': { direct: (u, full) => u.role === Role.MEMBER && full, subgroup: 'role:moderators' },
  'role:moderators': { direct: (u) => u.role === Role.MODERATOR, subgroup: 'role:administrators' },
  'role:administrators': { direct: (u) => u.role === Role.ADMINISTRATOR, subgroup: 'role:owners' },
  'role:owners': { direct: (u) => u.role === Role.OWNER, subgroup: null },
  'role:nobody': { direct: () => false, subgroup: null },
};

/** Whether an active user is a direct member of a system group (by role and account age). */
export function isDirectSystemMember(state: RealmState, group: UserGroup, user: User): boolean {
  const nesting = SYSTEM_NESTING[group.name];
  return user.isActive && nesting !== undefined && nesting.direct(user, isFullMember(state, user));
}

/** Active direct members, in id order. */
export function directMemberIds(state: RealmState, group: UserGroup): number[] {
  if (group.isSystemGroup) {
    if (!SYSTEM_NESTING[group.name]) return [];
    return state.activeUsers()
      .filter((u) => isDirectSystemMember(state, group, u))
      .map((u) => u.id)
      .sort((a, b) => a - b);
  }
  return [...group.members].filter((id) => state.users.get(id)?.isActive).sort((a, b) => a - b);
}

export function directSubgroupIds(state: RealmState, group: UserGroup): number[] {
  if (group.isSystemGroup) {
    const sub = SYSTEM_NESTING[group.name]?.subgroup;
    return sub ? [systemGroup(state, sub).id] : [];
  }
  return [...group.subgroups].sort((a, b) => a - b);
}

/** Every group reachable below a group (not the group itself). */
export function recursiveSubgroupIds(state: RealmState, groupId: number): Set<number> {
  const seen = new Set<number>();
  const stack = [groupId];
  while (stack.length) {
    const group = state.groups.get(stack.pop()!);
    if (!group) continue;
    for (const sub of directSubgroupIds(state, group)) {
      if (!seen.has(sub)) {
        seen.add(sub);
        stack.push(sub);
      }
    }
  }
  return seen;
}

/** Active members, directly or through subgroups (deactivated subgroups count as empty). */
export function memberIds(state: RealmState, group: UserGroup, directOnly = false): number[] {
  if (directOnly) return directMemberIds(state, group);
  const ids = new Set(directMemberIds(state, group));
  for (const subId of recursiveSubgroupIds(state, group.id)) {
    const sub = state.groups.get(subId);
    if (sub && !sub.deactivated) for (const id of directMemberIds(state, sub)) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** A group's own permission setting: stored, or the setting's default. */
export function groupSettingOf(state: RealmState, group: UserGroup, name: string): GroupSettingValue {
  const stored = group.settings[name];
  if (typeof stored === 'number' || (stored && typeof stored === 'object')) return stored as GroupSettingValue;
  const config = USER_GROUP_SETTINGS[name]!;
  // System groups cannot be managed, joined or mentioned through their own settings.
  if (group.isSystemGroup) return systemGroup(state, 'role:nobody').id;
  if (config.defaultGroup === 'group_creator') {
    return group.creatorId === null ? systemGroup(state, 'role:nobody').id : { direct_members: [group.creatorId], direct_subgroups: [] };
  }
  return systemGroup(state, config.defaultGroup).id;
}

/** The group object of GET /user_groups, register and `user_group` add events. */
export function formatGroup(state: RealmState, group: UserGroup): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: group.id,
    name: group.name,
    description: group.description,
    date_created: group.dateCreated ? Math.floor(group.dateCreated.getTime() / 1000) : null,
    creator_id: group.creatorId,
    members: directMemberIds(state, group),
    direct_subgroup_ids: directSubgroupIds(state, group),
    is_system_group: group.isSystemGroup,
    deactivated: group.deactivated,
  };
  for (const name of Object.keys(USER_GROUP_SETTINGS)) {
    out[name] = formatGroupSetting(state, groupSettingOf(state, group, name));
  }
  return out;
}

/** The realm's groups in id order; deactivated ones only when asked for. */
export function formatGroups(state: RealmState, includeDeactivated: boolean): Record<string, unknown>[] {
  return [...state.groups.values()]
    .filter((g) => includeDeactivated || !g.deactivated)
    .sort((a, b) => a.id - b.id)
    .map((g) => formatGroup(state, g));
}
