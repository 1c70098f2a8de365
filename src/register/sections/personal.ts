// Register sections of a user's own things: the users they muted, and everyone's status.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { mutedUsersOf } from '../../actions/users/mutedUsers.js';
import { formatUserStatus } from '../../actions/users/status.js';
import { canAccessUser } from '../../permissions/userAccess.js';

export const personalSections = {
  muted_users(actor: RealmActor, user: User) {
    return { muted_users: mutedUsersOf(actor, user.id) };
  },
  /** Statuses of the active users the caller can see, keyed by user id (Zulip's get_all_users_status_dict). */
  user_status(actor: RealmActor, user: User) {
    const out: Record<string, unknown> = {};
    for (const userId of actor.state.userStatus.keys()) {
      const target = actor.user(userId);
      if (!target?.isActive || !canAccessUser(actor.state, user, target)) continue;
      const status = formatUserStatus(actor, target);
      // Users whose status is all empty and who show their presence are left out.
      if (Object.keys(status).length) out[String(userId)] = status;
    }
    return { user_status: out };
  },
};
