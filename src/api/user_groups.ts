// User groups: create, list, edit, membership and subgroups, deactivation.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { badRequest } from '../model/errors.js';
import { changeGroupMembership, createGroup, deactivateGroup, groupForRead, updateGroup } from '../actions/groups/groups.js';
import { groupSettingChangeSchema, groupSettingValueSchema, USER_GROUP_SETTINGS } from '../permissions/groupPermissions.js';
import { formatGroups, memberIds, recursiveSubgroupIds, directSubgroupIds } from '../views/groups.js';
import { requireNonGuest } from '../permissions/roles.js';

const settingNames = Object.keys(USER_GROUP_SETTINGS);
const settingValueParams = Object.fromEntries(settingNames.map((n) => [n, p.json(groupSettingValueSchema).optional()]));
const settingChangeParams = Object.fromEntries(settingNames.map((n) => [n, p.json(groupSettingChangeSchema).optional()]));
const idList = () => p.intList().default([]);

export const userGroupEndpoints = [
  endpoint({
    method: 'POST',
    path: '/user_groups/create',
    auth: 'user',
    params: {
      name: p.string(),
      description: p.string(),
      members: p.intList(),
      subgroups: idList(),
      ...settingValueParams,
    },
    async handler({ actor, user, args }) {
      const a = args as Record<string, unknown>;
      const settings = Object.fromEntries(settingNames.filter((n) => a[n] !== undefined).map((n) => [n, a[n]]));
      const group = await createGroup(actor, user, {
        name: args.name,
        description: args.description,
        members: args.members,
        subgroups: args.subgroups,
        settings: settings as never,
      });
      return { group_id: group.id };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/user_groups',
    auth: 'user',
    params: { include_deactivated_groups: p.bool().default(false) },
    async handler({ actor, user, args }) {
      requireNonGuest(user);
      return { user_groups: formatGroups(actor.state, args.include_deactivated_groups) };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/user_groups/{user_group_id}',
    auth: 'user',
    params: {
      user_group_id: p.int(),
      name: p.string().optional(),
      description: p.string().optional(),
      deactivated: p.bool().optional(),
      ...settingChangeParams,
    },
    async handler({ actor, user, args }) {
      const a = args as Record<string, unknown>;
      const settings = Object.fromEntries(settingNames.filter((n) => a[n] !== undefined).map((n) => [n, a[n]]));
      await updateGroup(actor, user, args.user_group_id, {
        name: args.name,
        description: args.description,
        deactivated: args.deactivated,
        settings: settings as never,
      });
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/user_groups/{user_group_id}/deactivate',
    auth: 'user',
    params: { user_group_id: p.int() },
    async handler({ actor, user, args }) {
      await deactivateGroup(actor, user, args.user_group_id);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/user_groups/{user_group_id}/members',
    auth: 'user',
    params: {
      user_group_id: p.int(),
      add: idList(),
      delete: idList(),
      add_subgroups: idList(),
      delete_subgroups: idList(),
    },
    async handler({ actor, user, args }) {
      if (!args.add.length && !args.delete.length && !args.add_subgroups.length && !args.delete_subgroups.length) {
        throw badRequest('Nothing to do. Specify at least one of "add", "delete", "add_subgroups" or "delete_subgroups".');
      }
      await changeGroupMembership(actor, user, args.user_group_id, {
        add: args.add,
        delete: args.delete,
        addSubgroups: args.add_subgroups,
        deleteSubgroups: args.delete_subgroups,
      });
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/user_groups/{user_group_id}/subgroups',
    auth: 'user',
    params: { user_group_id: p.int(), add: idList(), delete: idList() },
    async handler({ actor, user, args }) {
      if (!args.add.length && !args.delete.length) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
      await changeGroupMembership(actor, user, args.user_group_id, {
        add: [],
        delete: [],
        addSubgroups: args.add,
        deleteSubgroups: args.delete,
      });
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/user_groups/{user_group_id}/members',
    auth: 'user',
    params: { user_group_id: p.int(), direct_member_only: p.bool().default(false) },
    async handler({ actor, user, args }) {
      const group = groupForRead(actor, user, args.user_group_id);
      return { members: memberIds(actor.state, group, args.direct_member_only) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/user_groups/{user_group_id}/members/{user_id}',
    auth: 'user',
    params: { user_group_id: p.int(), user_id: p.int(), direct_member_only: p.bool().default(false) },
    async handler({ actor, user, args }) {
      const group = groupForRead(actor, user, args.user_group_id);
      const target = actor.user(args.user_id);
      if (!target || !target.isActive || target.isBot) throw badRequest('No such user');
      return { is_user_group_member: memberIds(actor.state, group, args.direct_member_only).includes(target.id) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/user_groups/{user_group_id}/subgroups',
    auth: 'user',
    params: { user_group_id: p.int(), direct_subgroup_only: p.bool().default(false) },
    async handler({ actor, user, args }) {
      const group = groupForRead(actor, user, args.user_group_id);
      const ids = args.direct_subgroup_only
        ? directSubgroupIds(actor.state, group)
        : [...recursiveSubgroupIds(actor.state, group.id)].sort((a, b) => a - b);
      return { subgroups: ids };
    },
  }),
];
