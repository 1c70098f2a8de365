// Muted users (Zulip's zerver/actions/muted_users.py): a user hides another's messages. On
// muting, the muted user's messages the user has not read become read; later messages from
// them arrive read and notify nobody who muted them (actions/messages/send.ts). The user's
// clients get the whole list in a `muted_users` event.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { actingUser } from '../../permissions/roles.js';
import { canAccessUser } from '../../permissions/userAccess.js';
import { deleteMutedUser, insertMutedUser } from '../../db/personal.js';
import { mutedUsersEvent, type MutedUserEntry } from '../../events/catalog/index.js';
import { markReadInMailbox } from '../messages/flags.js';

/** The users `userId` muted, oldest mute first: the register section and the event's list. */
export function mutedUsersOf(actor: RealmActor, userId: number): MutedUserEntry[] {
  const mine = actor.state.mutedUsers.get(userId);
  if (!mine) return [];
  return [...mine].map(([id, timestamp]) => ({ id, timestamp })).sort((a, b) => a.timestamp - b.timestamp || a.id - b.id);
}

/** Zulip's access_user_by_id for muting: any user of the realm the caller can see, bots and deactivated users included. */
function userToMute(actor: RealmActor, user: User, targetId: number): User {
  const target = actor.user(targetId);
  if (!target) throw badRequest('No such user');
  if (!canAccessUser(actor.state, user, target)) throw badRequest('Insufficient permission');
  return target;
}

function announce(actor: RealmActor, user: User): void {
  actor.events.publish(mutedUsersEvent(mutedUsersOf(actor, user.id)), [user.id]);
}

/** POST /users/me/muted_users/{muted_user_id}. */
export function muteUser(actor: RealmActor, user: User, targetId: number): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    if (targetId === current.id) throw badRequest('Cannot mute self');
    const target = userToMute(actor, current, targetId);
    if (actor.state.mutedUsers.get(current.id)?.has(target.id)) throw badRequest('User already muted');
    const now = new Date();
    await insertMutedUser(actor.sql, actor.realm.id, current.id, target.id, now);
    let mine = actor.state.mutedUsers.get(current.id);
    if (!mine) actor.state.mutedUsers.set(current.id, (mine = new Map()));
    mine.set(target.id, Math.floor(now.getTime() / 1000));
    await markReadInMailbox(actor, current, (sql) => sql`m.sender_id = ${target.id}`);
    announce(actor, current);
  });
}

/** DELETE /users/me/muted_users/{muted_user_id}. */
export function unmuteUser(actor: RealmActor, user: User, targetId: number): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    const target = userToMute(actor, current, targetId);
    const mine = actor.state.mutedUsers.get(current.id);
    if (!mine?.has(target.id)) throw badRequest('User is not muted');
    await deleteMutedUser(actor.sql, current.id, target.id);
    mine.delete(target.id);
    if (mine.size === 0) actor.state.mutedUsers.delete(current.id);
    announce(actor, current);
  });
}
