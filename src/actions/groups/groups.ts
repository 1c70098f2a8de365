// User groups: creation, edits, membership and subgroups, deactivation and reactivation.
// Every group event goes to every active user of the realm.
import { ApiError, badRequest, insufficientPermission } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User, UserGroup } from '../../model/types.js';
import type { EventQueue } from '../../events/queue.js';
import { addGroupMembers, addSubgroups, insertGroup, removeGroupMembers, removeSubgroups, saveGroup } from '../../db/groups.js';
import { formatGroupSetting, type GroupSettingValue } from '../../permissions/groups.js';
import { applyGroupSettingChange, checkGroupSettingValue, hasGroupPermission, settingUsesGroup, USER_GROUP_SETTINGS, type GroupSettingChange } from '../../permissions/groupPermissions.js';
import { hasRealmPermission, realmGroupSetting } from '../../permissions/realmSettings.js';
import { REALM_PERMISSION_SETTINGS } from '../../permissions/realmDefaults.js';
import { formatGroup, groupSettingOf, recursiveSubgroupIds } from '../../views/groups.js';
import { actingUser, requireNonGuest } from '../../permissions/roles.js';
import { privateChannelAudiences, publishPrivateChannelAudienceChanges } from '../channels/events.js';
import { userGroupAddEvent, userGroupUpdateEvent, userGroupRemoveEvent, userGroupMembersEvent, userGroupSubgroupsEvent, type GroupChange } from '../../events/catalog/index.js';

const MAX_GROUP_NAME_LENGTH = 100;
const INVALID_NAME_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'];


function checkGroupName(actor: RealmActor, name: string, exceptId = 0): string {
  if (name.trim() === '') throw badRequest("User group name can't be empty!");
  if (name.length > MAX_GROUP_NAME_LENGTH) {
    throw badRequest(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  }
  const prefix = INVALID_NAME_PREFIXES.find((p) => name.startsWith(p));
  if (prefix) throw badRequest(`User group name cannot start with '${prefix}'.`);
  const existing = actor.state.groupByName(name);
  if (existing && existing.id !== exceptId) throw badRequest(`User group '${name}' already exists.`);
  return name;
}

/** Active users of this realm, by id; BAD_REQUEST names the first invalid one. */
export function activeUsersById(actor: RealmActor, ids: number[]): User[] {
  return [...new Set(ids)].map((id) => {
    const user = actor.user(id);
    if (!user || !user.isActive) throw badRequest(`Invalid user ID: ${id}`);
    return user;
  });
}

function findGroup(actor: RealmActor, id: number, allowDeactivated: boolean): UserGroup {
  const group = actor.state.groups.get(id);
  if (!group) throw badRequest('Invalid user group');
  if (!allowDeactivated && group.deactivated) throw badRequest('User group is deactivated.');
  return group;
}

/** Whether a user may change a group through one of its settings (or manages it / all groups). */
function mayUpdateGroup(actor: RealmActor, user: User, group: UserGroup, permission: string): boolean {
  if (group.isSystemGroup) return false;
  const state = actor.state;
  if (hasRealmPermission(state, user, 'can_manage_all_groups')) return true;
  const holds = (name: string) => hasGroupPermission(state, user, groupSettingOf(state, group, name), USER_GROUP_SETTINGS[name]!);
  return holds('can_manage_group') || (permission !== 'can_manage_group' && holds(permission));
}

/** Zulip's access_user_group_for_update: the group, if the user may change it that way. */
export function groupForUpdate(actor: RealmActor, user: User, id: number, permission: string, allowDeactivated = true): UserGroup {
  const group = findGroup(actor, id, allowDeactivated);
  if (!mayUpdateGroup(actor, user, group, permission)) throw insufficientPermission();
  return group;
}

/** A group whose membership may be read. */
export function groupForRead(actor: RealmActor, user: User, id: number): UserGroup {
  requireNonGuest(user);
  return findGroup(actor, id, false);
}

function everyone(actor: RealmActor): number[] {
  return actor.state.activeUsers().map((u) => u.id);
}

const wantsDeactivatedGroups = (queue: EventQueue) => queue.opts.clientCapabilities.include_deactivated_groups === true;

export interface NewGroupInput {
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  settings: Partial<Record<string, GroupSettingValue>>;
}

/** POST /user_groups/create: members of the realm's can_create_groups. */
export function createGroup(actor: RealmActor, acting: User, input: NewGroupInput): Promise<UserGroup> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireNonGuest(user);
    if (!hasRealmPermission(actor.state, user, 'can_create_groups')) throw insufficientPermission();
    const name = checkGroupName(actor, input.name);
    const members = activeUsersById(actor, input.members).map((u) => u.id);
    const settings: Record<string, unknown> = {};
    for (const [setting, config] of Object.entries(USER_GROUP_SETTINGS)) {
      const given = input.settings[setting];
      if (given !== undefined) settings[setting] = checkGroupSettingValue(actor.state, setting, given, config);
      else if (config.defaultGroup === 'group_creator') settings[setting] = { direct_members: [user.id], direct_subgroups: [] };
      else settings[setting] = actor.state.groupByName(config.defaultGroup)!.id;
    }
    const subgroups = [...new Set(input.subgroups)];
    for (const id of subgroups) {
      const sub = actor.state.groups.get(id);
      if (!sub) throw badRequest(`Invalid user group ID: ${id}`);
      if (sub.deactivated) throw badRequest('User group is deactivated.');
    }
    const group = await insertGroup(actor.sql, actor.realm.id, {
      name,
      description: input.description,
      creatorId: user.id,
      settings,
      members,
      subgroups,
    });
    actor.state.groups.set(group.id, group);
    actor.events.publish(userGroupAddEvent(formatGroup(actor.state, group)), everyone(actor));
    return group;
  });
}

export interface GroupUpdate {
  name?: string;
  description?: string;
  deactivated?: boolean;
  settings: Partial<Record<string, GroupSettingChange>>;
}

/** PATCH /user_groups/{id}: those who manage the group (or all groups). */
export function updateGroup(actor: RealmActor, acting: User, groupId: number, update: GroupUpdate): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireNonGuest(user);
    const nothing =
      update.name === undefined && update.description === undefined && update.deactivated === undefined &&
      Object.values(update.settings).every((v) => v === undefined);
    if (nothing) throw badRequest('No new data supplied');
    const group = groupForUpdate(actor, user, groupId, 'can_manage_group');
    const data: GroupChange = {};
    if (update.name !== undefined && update.name !== group.name) data.name = checkGroupName(actor, update.name, group.id);
    if (update.description !== undefined && update.description !== group.description) data.description = update.description;
    const newSettings: Record<string, GroupSettingValue> = {};
    for (const [setting, change] of Object.entries(update.settings)) {
      if (!change) continue;
      const current = groupSettingOf(actor.state, group, setting);
      const next = applyGroupSettingChange(actor.state, setting, current, change, USER_GROUP_SETTINGS[setting]!);
      if (next !== null) newSettings[setting] = next;
    }
    const reactivate = update.deactivated === false && group.deactivated;
    if (!Object.keys(data).length && !Object.keys(newSettings).length && !reactivate) return;

    const updated: UserGroup = {
      ...group,
      name: data.name ?? group.name,
      description: data.description ?? group.description,
      deactivated: reactivate ? false : group.deactivated,
      settings: { ...group.settings, ...newSettings },
    };
    await saveGroup(actor.sql, actor.realm.id, updated);
    actor.state.groups.set(group.id, updated);

    for (const [k, v] of Object.entries(newSettings)) data[k] = formatGroupSetting(actor.state, v);
    if (Object.keys(data).length) {
      actor.events.publish(userGroupUpdateEvent(group.id, data), everyone(actor));
    }
    if (reactivate) {
      actor.events.publish(
        (queue) =>
          wantsDeactivatedGroups(queue)
            ? userGroupUpdateEvent(group.id, { deactivated: false })
            : userGroupAddEvent(formatGroup(actor.state, updated)),
        everyone(actor),
      );
    }
  });
}

/** Where a group is in use, in the form of CANNOT_DEACTIVATE_GROUP_IN_USE's `objections`. */
export function groupObjections(actor: RealmActor, group: UserGroup): Record<string, unknown>[] {
  const state = actor.state;
  const objections: Record<string, unknown>[] = [];
  const supergroups = [...state.groups.values()]
    .filter((g) => !g.deactivated && g.subgroups.has(group.id))
    .map((g) => g.id)
    .sort((a, b) => a - b);
  if (supergroups.length) objections.push({ type: 'subgroup', supergroup_ids: supergroups });
  for (const stream of [...state.streams.values()].sort((a, b) => a.id - b.id)) {
    if (stream.isArchived) continue;
    const settings = Object.entries(stream.settings).filter(([, v]) => settingUsesGroup(v, group.id)).map(([k]) => k);
    if (settings.length) objections.push({ type: 'channel', channel_id: stream.id, settings: settings.sort() });
  }
  for (const other of [...state.groups.values()].sort((a, b) => a.id - b.id)) {
    if (other.deactivated || other.id === group.id) continue;
    const settings = Object.keys(USER_GROUP_SETTINGS).filter((k) => settingUsesGroup(groupSettingOf(state, other, k), group.id));
    if (settings.length) objections.push({ type: 'user_group', group_id: other.id, settings });
  }
  const realmSettings = Object.keys(REALM_PERMISSION_SETTINGS).filter((k) => settingUsesGroup(realmGroupSetting(state, k), group.id));
  if (realmSettings.length) objections.push({ type: 'realm', settings: realmSettings });
  return objections;
}

/** POST /user_groups/{id}/deactivate: those who manage the group, when nothing uses it. */
export function deactivateGroup(actor: RealmActor, acting: User, groupId: number): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireNonGuest(user);
    const group = groupForUpdate(actor, user, groupId, 'can_manage_group', false);
    const objections = groupObjections(actor, group);
    if (objections.length) {
      throw new ApiError('CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.', 400, { objections });
    }
    const updated = { ...group, deactivated: true };
    await saveGroup(actor.sql, actor.realm.id, updated);
    actor.state.groups.set(group.id, updated);
    actor.events.publish(
      (queue) =>
        wantsDeactivatedGroups(queue)
          ? userGroupUpdateEvent(group.id, { deactivated: true })
          : userGroupRemoveEvent(group.id),
      everyone(actor),
    );
  });
}

export interface MembershipChange {
  add: number[];
  delete: number[];
  addSubgroups: number[];
  deleteSubgroups: number[];
}

/** Checks each part of a membership change against the permission it needs. */
function checkMembershipChange(actor: RealmActor, user: User, groupId: number, change: MembershipChange): UserGroup {
  const state = actor.state;
  const self = (ids: number[]) => ids.length === 1 && ids[0] === user.id;
  const permitted = (group: UserGroup, ...permissions: string[]) => permissions.some((p) => mayUpdateGroup(actor, user, group, p));
  const group = findGroup(actor, groupId, true);
  if (change.add.length) {
    if (!permitted(group, ...(self(change.add) ? ['can_join_group', 'can_add_members_group'] : ['can_add_members_group']))) {
      throw insufficientPermission();
    }
    for (const u of activeUsersById(actor, change.add)) {
      if (group.members.has(u.id)) throw badRequest(`User ${u.id} is already a member of this group`);
    }
  }
  if (change.delete.length) {
    if (!permitted(group, ...(self(change.delete) ? ['can_leave_group', 'can_remove_members_group'] : ['can_remove_members_group']))) {
      throw insufficientPermission();
    }
    for (const u of activeUsersById(actor, change.delete)) {
      if (!group.members.has(u.id)) throw badRequest(`There is no member '${u.id}' in this user group`);
    }
  }
  const subgroupsOf = (ids: number[]) =>
    [...new Set(ids)].map((id) => {
      const sub = state.groups.get(id);
      if (!sub) throw badRequest(`Invalid user group ID: ${id}`);
      return sub;
    });
  if (change.addSubgroups.length) {
    if (!permitted(group, 'can_add_members_group')) throw insufficientPermission();
    for (const sub of subgroupsOf(change.addSubgroups)) {
      if (sub.deactivated) throw badRequest('User group is deactivated.');
      if (group.subgroups.has(sub.id)) throw badRequest(`User group ${sub.id} is already a subgroup of this group.`);
      // No cycles: the group must not be the subgroup itself or anywhere below it.
      if (sub.id === group.id || recursiveSubgroupIds(state, sub.id).has(group.id)) {
        throw badRequest(`User group ${group.id} is already a subgroup of one of the passed subgroups.`);
      }
    }
  }
  if (change.deleteSubgroups.length) {
    if (!permitted(group, 'can_manage_group')) throw insufficientPermission();
    for (const sub of subgroupsOf(change.deleteSubgroups)) {
      if (!group.subgroups.has(sub.id)) throw badRequest(`User group ${sub.id} is not a subgroup of this group.`);
    }
  }
  return group;
}

/** POST /user_groups/{id}/members and /subgroups: all parts succeed or none does. */
export function changeGroupMembership(actor: RealmActor, acting: User, groupId: number, change: MembershipChange): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireNonGuest(user);
    const group = checkMembershipChange(actor, user, groupId, change);
    const add = [...new Set(change.add)];
    const remove = [...new Set(change.delete)];
    const addSubs = [...new Set(change.addSubgroups)];
    const removeSubs = [...new Set(change.deleteSubgroups)];
    const channelAudiences = privateChannelAudiences(actor);
    await actor.sql.begin(async (tx) => {
      await addGroupMembers(tx, group.id, add);
      await removeGroupMembers(tx, group.id, remove);
      await addSubgroups(tx, group.id, addSubs);
      await removeSubgroups(tx, group.id, removeSubs);
    });
    const members = new Set(group.members);
    for (const id of add) members.add(id);
    for (const id of remove) members.delete(id);
    const subgroups = new Set(group.subgroups);
    for (const id of addSubs) subgroups.add(id);
    for (const id of removeSubs) subgroups.delete(id);
    actor.state.groups.set(group.id, { ...group, members, subgroups });

    const audience = everyone(actor);
    if (add.length) actor.events.publish(userGroupMembersEvent('add_members', group.id, add), audience);
    if (remove.length) actor.events.publish(userGroupMembersEvent('remove_members', group.id, remove), audience);
    if (addSubs.length) actor.events.publish(userGroupSubgroupsEvent('add_subgroups', group.id, addSubs), audience);
    if (removeSubs.length) actor.events.publish(userGroupSubgroupsEvent('remove_subgroups', group.id, removeSubs), audience);
    // Groups grant sight of private channels through their settings.
    publishPrivateChannelAudienceChanges(actor, channelAudiences);
  });
}
