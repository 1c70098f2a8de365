// The life of an account after creation: deactivation and reactivation, role and name
// changes by administrators, and API key rotation. A deactivated user's key, queues and
// parked polls stop working in the same actor turn that deactivates them.
import { ApiError, badRequest, mustBeAdmin, mustBeOwner } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import { Role, type User } from '../../model/types.js';
import { saveUser } from '../../db/organization.js';
import { generateApiKey } from '../../auth/keys.js';
import { directMemberIds } from '../../views/groups.js';
import { checkFullName, checkRole } from './create.js';
import { revokeInvitesOf } from '../realm/invites.js';
import { revokeEmailInvitesOf } from '../realm/emailInvites.js';
import { applyProfileData, type ProfileDataEntry } from './profileFields.js';
import { actingUser, requireAdmin } from '../../permissions/roles.js';
import { botForAdmin } from '../../permissions/bots.js';
import { publishBotUpdate, publishRealmUserUpdate } from './events.js';
import { userGroupMembersEvent } from '../../events/catalog/index.js';
import { deleteSessionsOf } from './login.js';
import { directGroupIds, publishDeactivation, publishReactivation } from './activation.js';
import { publishSightChanges, sightOf } from './sight.js';
import { channelVisibility, publishChannelVisibilityChange } from '../channels/events.js';

export const cannotDeactivateLastUser = (isLastOwner: boolean) => {
  const entity = isLastOwner ? 'organization owner' : 'user';
  return new ApiError('CANNOT_DEACTIVATE_LAST_USER', `Cannot deactivate the only ${entity}.`, 400, {
    is_last_owner: isLastOwner,
    entity,
  });
};

const isLastOwner = (actor: RealmActor, user: User) =>
  user.role === Role.OWNER && !actor.state.activeUsers().some((u) => u.id !== user.id && u.role === Role.OWNER && !u.isBot);

/** Replaces a user in memory and the database; returns the new object. */
async function writeUser(actor: RealmActor, user: User, changes: Partial<User>): Promise<User> {
  const updated: User = { ...user, ...changes };
  await saveUser(actor.sql, updated);
  actor.state.putUser(updated);
  return updated;
}

const everyone = (actor: RealmActor) => actor.state.activeUsers().map((u) => u.id);

/**
 * Role changes move users between system groups; clients keep group membership, so tell
 * them which direct memberships changed.
 */
function systemMembership(actor: RealmActor): Map<number, Set<number>> {
  const out = new Map<number, Set<number>>();
  for (const g of actor.state.groups.values()) if (g.isSystemGroup) out.set(g.id, new Set(directMemberIds(actor.state, g)));
  return out;
}

function publishSystemGroupChanges(actor: RealmActor, before: Map<number, Set<number>>, userId: number): void {
  const after = systemMembership(actor);
  for (const [groupId, members] of after) {
    const was = before.get(groupId)?.has(userId) ?? false;
    const is = members.has(userId);
    if (was === is) continue;
    actor.events.publish(userGroupMembersEvent(is ? 'add_members' : 'remove_members', groupId, [userId]), everyone(actor));
  }
}

/** Deactivates users (and bots they own): keys stop working, queues and polls end. */
async function deactivate(actor: RealmActor, target: User): Promise<void> {
  const bots = target.isBot ? [] : actor.state.activeUsers().filter((u) => u.isBot && u.botOwnerId === target.id);
  const affected = [target, ...bots];
  const sight = sightOf(actor, affected);
  const groupIds = new Map(affected.map((u) => [u.id, directGroupIds(actor, u)]));
  await actor.sql.begin(async (tx) => {
    for (const u of affected) await saveUser(tx, { ...u, isActive: false });
    // Zulip's delete_user_sessions: a reactivated user logs in again.
    await deleteSessionsOf(actor, tx, affected.map((u) => u.id));
  });
  for (const u of affected) {
    actor.state.putUser({ ...u, isActive: false });
    // A request that authenticated a moment ago still holds the old object.
    u.isActive = false;
    actor.events.deleteUserQueues(u.id);
  }
  await revokeInvitesOf(actor, target.id);
  await revokeEmailInvitesOf(actor, target.id);
  for (const u of affected) {
    publishDeactivation(actor, u, groupIds.get(u.id)!);
    publishRealmUserUpdate(actor, u, { is_active: false });
    if (u.isBot) publishBotUpdate(actor, u, { is_active: false });
  }
  // Guests who saw the user only through a channel lose sight of it (`realm_user` remove).
  publishSightChanges(actor, sight);
}

/** DELETE /users/{id}: administrators; owners only by owners; never the last owner. */
export function deactivateUser(actor: RealmActor, acting: User, targetId: number): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireAdmin(user);
    const target = actor.user(targetId);
    if (!target || target.isBot) throw badRequest('No such user');
    if (!target.isActive) throw badRequest('User is deactivated');
    if (target.role === Role.OWNER && user.role !== Role.OWNER) throw mustBeOwner();
    // Unlike DELETE /users/me, Zulip answers a plain error here (no code of its own).
    if (isLastOwner(actor, target)) throw badRequest('Cannot deactivate the only organization owner');
    await deactivate(actor, target);
  });
}

/** DELETE /users/me: anyone, except the realm's only user or only owner. */
export function deactivateSelf(actor: RealmActor, acting: User): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    if (actor.state.activeUsers().length === 1) throw cannotDeactivateLastUser(false);
    if (isLastOwner(actor, user)) throw cannotDeactivateLastUser(true);
    await deactivate(actor, user);
  });
}

/** DELETE /bots/{id}: the bot's owner or an administrator. */
export function deactivateBot(actor: RealmActor, acting: User, botId: number): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    const bot = botForAdmin(actor.state, user, botId);
    if (!bot.isActive) throw badRequest('User is deactivated');
    if (bot.role === Role.OWNER && user.role !== Role.OWNER) throw mustBeOwner();
    await deactivate(actor, bot);
  });
}

/** Reactivates a user or bot. */
async function reactivate(actor: RealmActor, target: User): Promise<void> {
  const sight = sightOf(actor, [target]);
  const updated = await writeUser(actor, target, { isActive: true });
  // Guests who share a channel with the user see it again: the user in full first.
  publishSightChanges(actor, sight);
  publishRealmUserUpdate(actor, updated, { is_active: true });
  if (updated.isBot) publishBotUpdate(actor, updated, { is_active: true });
  publishReactivation(actor, updated);
}

/** POST /users/{id}/reactivate: administrators. */
export function reactivateUser(actor: RealmActor, acting: User, targetId: number): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireAdmin(user);
    const target = actor.user(targetId);
    if (!target) throw badRequest('No such user');
    if (target.isActive) throw badRequest('User is already active');
    if (target.isBot) {
      const owner = target.botOwnerId === null ? undefined : actor.user(target.botOwnerId);
      if (owner && !owner.isActive) throw badRequest("Cannot reactivate a bot whose owner is deactivated.");
    }
    if (target.role === Role.OWNER && user.role !== Role.OWNER) throw mustBeOwner();
    await reactivate(actor, target);
  });
}

/**
 * Who may change a role (users and bots alike): only owners grant or revoke the owner role,
 * only administrators change roles at all, and the last owner keeps theirs.
 */
export function checkRoleChange(actor: RealmActor, user: User, target: User, role: number): void {
  checkRole(role);
  if (role === target.role) return;
  if ((role === Role.OWNER || target.role === Role.OWNER) && user.role !== Role.OWNER) throw mustBeOwner();
  if (user.role > Role.ADMINISTRATOR) throw mustBeAdmin();
  if (target.role === Role.OWNER && isLastOwner(actor, target)) {
    throw badRequest('The owner permission cannot be removed from the only organization owner.');
  }
}

/** Applies a role and/or name change already checked; sends the events. */
export async function applyUserChanges(actor: RealmActor, target: User, changes: { role?: number; fullName?: string }): Promise<User> {
  const role = changes.role !== undefined && changes.role !== target.role ? changes.role : undefined;
  const fullName = changes.fullName !== undefined && changes.fullName !== target.fullName ? changes.fullName : undefined;
  if (role === undefined && fullName === undefined) return target;
  const before = systemMembership(actor);
  const visibleBefore = role !== undefined ? channelVisibility(actor, target) : null;
  const updated = await writeUser(actor, target, { role: role ?? target.role, fullName: fullName ?? target.fullName });
  if (role !== undefined) {
    publishRealmUserUpdate(actor, updated, { role });
    if (updated.isActive) publishSystemGroupChanges(actor, before, updated.id);
    if (updated.isBot) publishBotUpdate(actor, updated, { role });
    // Guests see fewer channels, administrators more.
    publishChannelVisibilityChange(actor, updated.id, visibleBefore!);
  }
  if (fullName !== undefined) {
    publishRealmUserUpdate(actor, updated, { full_name: fullName });
    if (updated.isBot) publishBotUpdate(actor, updated, { full_name: fullName });
  }
  return updated;
}

export interface UserChanges {
  role?: number;
  fullName?: string;
  profileData?: ProfileDataEntry[];
}

/** PATCH /users/{id} (role, full name, profile data): administrators. */
export function changeUser(actor: RealmActor, acting: User, targetId: number, changes: UserChanges): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireAdmin(user);
    const target = actor.user(targetId);
    if (!target) throw badRequest('No such user');
    if (changes.role !== undefined) checkRoleChange(actor, user, target, changes.role);
    const fullName = changes.fullName !== undefined && changes.fullName.trim() !== '' ? checkFullName(changes.fullName) : undefined;
    if (changes.profileData) await applyProfileData(actor, target, changes.profileData, true);
    await applyUserChanges(actor, actor.user(target.id)!, { role: changes.role, fullName });
  });
}

/** Gives a user (or bot) a new API key; the old one fails from this moment on. */
export async function rotateApiKey(actor: RealmActor, target: User): Promise<User> {
  const updated = await writeUser(actor, target, { apiKey: generateApiKey() });
  // Clients holding the old key must re-register; their polls end now.
  actor.events.deleteUserQueues(target.id);
  return updated;
}

/** POST /users/me/api_key/regenerate. */
export function regenerateOwnApiKey(actor: RealmActor, acting: User): Promise<string> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    return (await rotateApiKey(actor, user)).apiKey;
  });
}
