// Events about user groups.
import { z } from 'zod';
import { groupObject, groupSettingValue, ids, int, type ApiObject } from './objects.js';
import type { GroupSettingValue } from '../../permissions/groups.js';
import { USER_GROUP_SETTINGS } from '../../permissions/groupPermissions.js';

const groupChange = z.strictObject({
  name: z.string().optional(),
  description: z.string().optional(),
  deactivated: z.boolean().optional(),
  ...Object.fromEntries(Object.keys(USER_GROUP_SETTINGS).map((n) => [n, groupSettingValue.optional()])),
});
/** Name, description, deactivation, or a permission setting (by its name) that changed. */
export type GroupChange = { name?: string; description?: string; deactivated?: boolean } & { [setting: string]: string | boolean | GroupSettingValue | undefined };

export const userGroupEventSchema = z.union([
  z.strictObject({ type: z.literal('user_group'), op: z.literal('add'), group: groupObject }),
  z.strictObject({ type: z.literal('user_group'), op: z.literal('update'), group_id: int(), data: groupChange }),
  z.strictObject({ type: z.literal('user_group'), op: z.literal('remove'), group_id: int() }),
  z.strictObject({ type: z.literal('user_group'), op: z.enum(['add_members', 'remove_members']), group_id: int(), user_ids: ids() }),
  z.strictObject({ type: z.literal('user_group'), op: z.enum(['add_subgroups', 'remove_subgroups']), group_id: int(), direct_subgroup_ids: ids() }),
]);
export type UserGroupEvent = z.infer<typeof userGroupEventSchema>;

export const userGroupAddEvent = (group: ApiObject): UserGroupEvent => ({ type: 'user_group', op: 'add', group });

export const userGroupUpdateEvent = (groupId: number, data: GroupChange): UserGroupEvent => ({ type: 'user_group', op: 'update', group_id: groupId, data: data as z.infer<typeof groupChange> });

export const userGroupRemoveEvent = (groupId: number): UserGroupEvent => ({ type: 'user_group', op: 'remove', group_id: groupId });

export const userGroupMembersEvent = (op: 'add_members' | 'remove_members', groupId: number, userIds: number[]): UserGroupEvent => ({
  type: 'user_group', op, group_id: groupId, user_ids: userIds,
});

export const userGroupSubgroupsEvent = (op: 'add_subgroups' | 'remove_subgroups', groupId: number, subgroupIds: number[]): UserGroupEvent => ({
  type: 'user_group', op, group_id: groupId, direct_subgroup_ids: subgroupIds,
});

export const groupEventSchemas = [userGroupEventSchema] as const;
