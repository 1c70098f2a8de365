// Users: list, fetch one (by id or email), self, create.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { badRequest, insufficientPermission, unauthorized } from '../model/errors.js';
import { canAccessAllUsers, canAccessUser } from '../permissions/userAccess.js';
import { createUser } from '../actions/users/create.js';
import { formatUser, inaccessibleUserView } from '../views/users.js';
import { profileDataFor } from '../views/profileFields.js';
import { userByPathKey } from '../queries/users.js';
import { ownUserJson } from '../queries/ownUser.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';

const viewParams = {
  client_gravatar: p.bool().default(true),
  include_custom_profile_fields: p.bool().default(false),
};

function view(actor: RealmActor, viewer: User | null, target: User, args: { client_gravatar: boolean; include_custom_profile_fields: boolean }) {
  return formatUser(actor.services.config, actor.realm, viewer, target, {
    clientGravatar: args.client_gravatar,
    includeCustomProfileFields: args.include_custom_profile_fields,
    profileData: args.include_custom_profile_fields ? profileDataFor(actor.state, target.id) : undefined,
  });
}

/**
 * The user `/users/{x}` names; one outside a limited guest's sight is refused as Zulip's
 * access_user_common does.
 */
function findUser(actor: RealmActor, viewer: User, key: string): User {
  const user = userByPathKey(actor, viewer, key);
  if (!canAccessUser(actor.state, viewer, user)) throw insufficientPermission();
  return user;
}

export const userEndpoints = [
  endpoint({
    method: 'GET',
    path: '/users',
    auth: 'optional',
    params: { ...viewParams, user_ids: p.intList().optional() },
    async handler({ actor, user, args }) {
      // Public access: the organization allows it, the server allows it, and the
      // organization is not deactivated.
      const publicAccess =
        actor.realm.settings.enable_spectator_access && actor.services.config.WEB_PUBLIC_STREAMS_ENABLED && !actor.realm.deactivated;
      if (!user && !publicAccess) throw unauthorized();
      const clientGravatar = user ? args.client_gravatar : false;
      let targets: User[];
      if (args.user_ids) {
        targets = [...new Set(args.user_ids)].map((id) => {
          const u = actor.user(id);
          if (!u) throw badRequest(`Invalid user ID: ${id}`);
          return u;
        });
      } else {
        targets = [...actor.state.users.values()];
      }
      // A guest limited by can_access_all_users_group gets Zulip's placeholder for the others.
      const limited = user !== null && !canAccessAllUsers(actor.state, user);
      return {
        members: targets.map((t) =>
          limited && !canAccessUser(actor.state, user, t)
            ? inaccessibleUserView(actor.services.config, actor.realm, t.id)
            : view(actor, user, t, { ...args, client_gravatar: clientGravatar }),
        ),
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/users/me',
    auth: 'user',
    params: {},
    handler({ actor, user }) {
      return ownUserJson(actor, user);
    },
  }),
  endpoint({
    method: 'GET',
    path: '/users/{user}',
    auth: 'user',
    params: { ...viewParams, user: z.string() },
    async handler({ actor, user, args }) {
      return { user: view(actor, user, findUser(actor, user, args.user), args) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users',
    auth: 'user',
    params: { email: p.string(), password: p.string(), full_name: p.string() },
    async handler({ actor, user, args }) {
      const created = await createUser(actor, user, { email: args.email, password: args.password, fullName: args.full_name });
      return { user_id: created.id };
    },
  }),
];
