// Administering accounts: deactivation and reactivation, role, name and profile data
// changes, and rotating one's own API key. Paths share the shape `/users/{user}` with
// GET /users/{user}, so they name the parameter the same way.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { changeUser, deactivateSelf, deactivateUser, reactivateUser, regenerateOwnApiKey } from '../actions/users/lifecycle.js';
import { userByPathKey } from '../queries/users.js';
import { removeOwnProfileData, updateOwnProfileData } from '../actions/users/profileFields.js';

const profileData = z.array(z.object({ id: z.number().int(), value: z.unknown() }));

export const userAdminEndpoints = [
  endpoint({
    method: 'DELETE',
    path: '/users/{user}',
    auth: 'user',
    params: { user: p.int(), deactivation_notification_comment: p.string().max(2000).optional() },
    async handler({ actor, user, args }) {
      await deactivateUser(actor, user, args.user);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users/{user}/reactivate',
    auth: 'user',
    params: { user: p.int() },
    async handler({ actor, user, args }) {
      await reactivateUser(actor, user, args.user);
      return {};
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/users/{user}',
    auth: 'user',
    params: {
      // An id, or (feature level 313) an email address as GET /users/{email} takes it.
      user: z.string(),
      full_name: p.string().optional(),
      role: p.int().optional(),
      profile_data: p.json(profileData).optional(),
    },
    async handler({ actor, user, args }) {
      const targetId = /^\d+$/.test(args.user) ? Number(args.user) : userByPathKey(actor, user, args.user).id;
      await changeUser(actor, user, targetId, {
        role: args.role,
        fullName: args.full_name,
        profileData: args.profile_data?.map((e) => ({ id: e.id, value: e.value })),
      });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/users/me',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      await deactivateSelf(actor, user);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users/me/api_key/regenerate',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return { api_key: await regenerateOwnApiKey(actor, user) };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/users/me/profile_data',
    auth: 'user',
    params: { data: p.json(profileData) },
    async handler({ actor, user, args }) {
      await updateOwnProfileData(actor, user, args.data.map((e) => ({ id: e.id, value: e.value })));
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/users/me/profile_data',
    auth: 'user',
    params: { data: p.intList() },
    async handler({ actor, user, args }) {
      await removeOwnProfileData(actor, user, args.data);
      return {};
    },
  }),
];
