// Presence: a client's report (POST /users/me/presence), one user's presence, the realm's.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { badRequest } from '../model/errors.js';
import { parsePresenceStatus, reportPresence } from '../actions/users/presence.js';
import { nowSeconds, realmPresences, userPresenceView } from '../views/presence.js';
import { canAccessUser } from '../permissions/userAccess.js';
import { apiEmail } from '../views/users.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';

/** `/users/{user_id_or_email}/presence`: an id, or the user's API email. */
function findActiveUser(actor: RealmActor, key: string): User | undefined {
  if (/^\d+$/.test(key)) {
    const u = actor.user(Number(key));
    return u?.isActive ? u : undefined;
  }
  const wanted = key.toLowerCase();
  for (const u of actor.state.users.values()) {
    if (u.isActive && apiEmail(actor.services.config, actor.realm, u).toLowerCase() === wanted) return u;
  }
  return undefined;
}

export const presenceEndpoints = [
  endpoint({
    method: 'POST',
    path: '/users/me/presence',
    auth: 'user',
    params: {
      status: p.string(),
      ping_only: p.bool().default(false),
      new_user_input: p.bool().default(false),
      slim_presence: p.bool().default(false),
      last_update_id: p.int().optional(),
      history_limit_days: p.int().optional(),
    },
    async handler({ actor, user, args }) {
      reportPresence(actor, user, parsePresenceStatus(args.status));
      if (args.ping_only) return {};
      const { presences, presence_last_update_id } = realmPresences(actor.services.config, actor.state, user, {
        // Sending last_update_id means the client speaks the modern format.
        slim: args.slim_presence || args.last_update_id !== undefined,
        lastUpdateId: args.last_update_id,
        historyDays: args.history_limit_days,
      });
      return { presences, server_timestamp: nowSeconds(), presence_last_update_id };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/users/{user_id_or_email}/presence',
    auth: 'user',
    params: { user_id_or_email: z.string(), slim_presence: p.bool().default(false) },
    async handler({ actor, user, args }) {
      const target = findActiveUser(actor, args.user_id_or_email);
      if (!target || !canAccessUser(actor.state, user, target)) throw badRequest('No such user');
      if (target.botType !== null || target.isBot) throw badRequest('Presence is not supported for bot users.');
      const row = actor.state.presence.get(target.id);
      if (!row) throw badRequest(`No presence data for ${args.user_id_or_email}`);
      return { presence: userPresenceView(row, target, args.slim_presence) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/realm/presence',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      const { presences } = realmPresences(actor.services.config, actor.state, user, { slim: false });
      return { presences, server_timestamp: nowSeconds() };
    },
  }),
];
