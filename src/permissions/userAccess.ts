// Who receives events about a user. Zulip limits which users a guest can see when the realm's
// can_access_all_users_group is role:members: such a guest sees itself, every bot, the users it
// shares a channel with and the users it has direct messages with (1:1 or group; Zulip's
// check_can_access_user and get_accessible_user_ids). Bots are never hidden (Zulip's
// user_access_restricted_in_realm is false for a bot), so events about a bot go to everyone;
// events about a human go only to those who can see that user.
import type { RealmState } from '../model/realmState.js';
import { Role, type User } from '../model/types.js';
import { hasRealmPermission, realmGroupSetting } from './realmSettings.js';
import { systemGroup } from './groups.js';

export function canAccessAllUsers(state: RealmState, viewer: User): boolean {
  // The setting is role:everyone or role:members (nothing else is allowed), and both hold
  // every active user but guests: only a guest's answer depends on it. (Asked per recipient
  // queue of every message, so the common answer is found without the group lookup.)
  if (viewer.isActive && viewer.role !== Role.GUEST) return true;
  return hasRealmPermission(state, viewer, 'can_access_all_users_group');
}

/** Whether nobody's sight of users is limited (can_access_all_users_group is role:everyone). */
export function everyoneSeesAllUsers(state: RealmState): boolean {
  return realmGroupSetting(state, 'can_access_all_users_group') === systemGroup(state, 'role:everyone').id;
}

function sharesChannel(state: RealmState, a: User, b: User): boolean {
  const mine = state.subsByUser.get(a.id);
  if (!mine) return false;
  for (const [streamId, sub] of mine) if (sub.active && state.isSubscribed(b.id, streamId)) return true;
  return false;
}

/**
 * Whether `viewer` may see `target` (its profile, presence, changes). A channel shows only its
 * active subscribers: a deactivated user stays in sight of its direct-message partners only
 * (Zulip counts subscriptions with is_user_active; see send_events_for_user_deactivation).
 */
export function canAccessUser(state: RealmState, viewer: User, target: User): boolean {
  if (viewer.id === target.id || target.isBot || canAccessAllUsers(state, viewer)) return true;
  return state.messaging.areDirectPartners(viewer.id, target.id) || (target.isActive && sharesChannel(state, viewer, target));
}

/** Ids of the active users who can see `target`: the audience of events about it. */
export function usersWhoCanAccess(state: RealmState, target: User): number[] {
  return activeUserIds(state, (u) => canAccessUser(state, u, target));
}

/** Ids of the active users who cannot see `target` (guests, where the realm limits their sight). */
export function usersWhoCannotAccess(state: RealmState, target: User): number[] {
  return activeUserIds(state, (u) => !canAccessUser(state, u, target));
}

function activeUserIds(state: RealmState, keep: (u: User) => boolean): number[] {
  const out: number[] = [];
  for (const u of state.users.values()) if (u.isActive && keep(u)) out.push(u.id);
  return out;
}

/**
 * Whether a channel message's sender is hidden from the viewer (shown as "Unknown user"). A
 * direct message's participants are always visible to each other: a conversation with a
 * message makes them direct-message partners (see canAccessUser), and its first message is
 * announced after the partners learn of each other.
 */
export function senderHiddenFrom(state: RealmState, viewer: User | null, m: { streamId: number | null; senderId: number }): boolean {
  if (!viewer || m.streamId === null || canAccessAllUsers(state, viewer)) return false;
  const sender = state.users.get(m.senderId);
  return !!sender && !canAccessUser(state, viewer, sender);
}
