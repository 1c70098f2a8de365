// Checks on the acting user that organization administration shares.
import { badRequest, mustBeAdmin, unauthorized } from '../model/errors.js';
import type { RealmState } from '../model/realmState.js';
import type { User } from '../model/types.js';
import { isAdmin, isGuest } from '../model/roles.js';

/**
 * The acting user as the realm holds them now: a request authenticated just before its
 * user was deactivated (or changed key) must not act.
 */
export function actingUser(state: RealmState, user: User): User {
  const current = state.users.get(user.id);
  if (!current || !current.isActive) throw unauthorized('Account is deactivated');
  return current;
}

export function requireAdmin(user: User): void {
  if (!isAdmin(user)) throw mustBeAdmin();
}

export function requireNonGuest(user: User): void {
  if (isGuest(user)) throw badRequest('Not allowed for guest users');
}
