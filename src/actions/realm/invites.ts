// Reusable invitation links: creation within what the creator may grant, listing, revocation,
// and the account a new person creates with one. A link works only in its own realm, only
// until it expires or is revoked, and never grants more than its creator could at the time.
import { randomInt } from 'node:crypto';
import { badRequest, mustBeAdmin, mustBeOwner } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import { ROLES, Role, type EmailInvite, type InviteGrant, type MultiuseInvite, type Stream, type Subscription, type User, type UserGroup } from '../../model/types.js';
import { insertInvite, revokeInvite } from '../../db/invites.js';
import { addGroupMembers } from '../../db/groups.js';
import { saveUser } from '../../db/organization.js';
import { insertSubscriptionLog, saveSubscription } from '../../db/subscriptions.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { canAccessChannelContent, canSubscribeOthers } from '../../permissions/channelAccess.js';
import { publishPeerEvents, publishSubscriptionAdd } from '../channels/events.js';
import { realmUserDefault } from './settings.js';
import { newUserSettings } from '../../permissions/realmDefaults.js';
import { groupForUpdate } from '../groups/groups.js';
import { announceUser, insertNewUser } from '../users/create.js';
import { actingUser, requireNonGuest } from '../../permissions/roles.js';
import { isAdmin } from '../../model/roles.js';
import { inviteLink, inviteExpired } from '../../views/invites.js';
import { invitesChangedEvent, userGroupMembersEvent } from '../../events/catalog/index.js';
import { InviteStatus, setEmailInviteStatus } from '../../db/emailInvites.js';
import { queueEmailsInBackground } from '../email/outbox.js';
import { welcomeEmailOf } from '../email/account.js';
import { sendInternalMessage, silentMention } from '../messages/notificationBot.js';

export const DEFAULT_INVITE_VALIDITY_MINUTES = 14400;
/** The longest expiry accepted (a century): beyond it the expiry date would not be a date. */
export const MAX_INVITE_VALIDITY_MINUTES = 100 * 365 * 24 * 60;
const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';


export function generateInviteKey(): string {
  let key = '';
  for (let i = 0; i < 24; i++) key += KEY_ALPHABET[randomInt(KEY_ALPHABET.length)];
  return key;
}

/** Whether a user may hand out a role: owners only by owners, staff roles only by administrators. */
export function roleGrantError(user: User, invitedAs: number): string | null {
  if (!ROLES.includes(invitedAs)) return 'Invalid invite_as';
  if (invitedAs === Role.OWNER && user.role !== Role.OWNER) return 'Must be an organization owner';
  if (invitedAs <= Role.MODERATOR && user.role > Role.ADMINISTRATOR) return 'Must be an organization administrator';
  return null;
}

/** Channels of a link: each readable by the creator, and default or open to their subscribing others. */
function inviteStreams(actor: RealmActor, user: User, ids: number[]): Stream[] {
  const state = actor.state;
  const streams = [...new Set(ids)].map((id) => {
    const stream = state.streams.get(id);
    if (!stream || stream.isArchived || !canAccessChannelContent(state, user, stream)) {
      throw badRequest(`Invalid channel ID ${id}. No invites were sent.`);
    }
    return stream;
  });
  const canSubscribe = (s: Stream) =>
    canSubscribeOthers(state, user, s) || (s.isDefault && hasRealmPermission(state, user, 'can_add_subscribers_group'));
  if (streams.some((s) => !canSubscribe(s))) throw badRequest('You do not have permission to subscribe other users to channels.');
  return streams;
}

export function notifyInvitesChanged(actor: RealmActor, referrerId: number): void {
  const ids = new Set(actor.state.activeUsers().filter((u) => isAdmin(u)).map((u) => u.id));
  ids.add(referrerId);
  actor.events.publish(invitesChangedEvent(), ids);
}

export interface InviteGrantInput {
  expiresInMinutes: number | null;
  invitedAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
}

/**
 * What a new invitation of either kind grants, once its channels and groups are checked against
 * what its creator may give. Each invitation made from it gets a key of its own.
 */
export function checkedGrant(actor: RealmActor, user: User, input: InviteGrantInput): Omit<InviteGrant, 'key'> {
  const streams = inviteStreams(actor, user, input.streamIds);
  const groups = [...new Set(input.groupIds)].map((id) => groupForUpdate(actor, user, id, 'can_add_members_group', false));
  return {
    realmId: actor.realm.id,
    referredBy: user.id,
    invitedAs: input.invitedAs,
    streamIds: streams.map((s) => s.id),
    groupIds: groups.map((g) => g.id),
    includeRealmDefaultSubscriptions: input.includeRealmDefaultSubscriptions,
    expiresAt: input.expiresInMinutes === null ? null : new Date(Date.now() + input.expiresInMinutes * 60_000),
  };
}

/** POST /invites/multiuse. */
export function createMultiuseInvite(actor: RealmActor, acting: User, input: InviteGrantInput): Promise<string> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireNonGuest(user);
    const state = actor.state;
    if (!hasRealmPermission(state, user, 'create_multiuse_invite_group') || !hasRealmPermission(state, user, 'can_invite_users_group')) {
      throw badRequest('Insufficient permission');
    }
    const roleError = roleGrantError(user, input.invitedAs);
    if (roleError) throw badRequest(roleError);
    if (input.expiresInMinutes !== null && (input.expiresInMinutes <= 0 || input.expiresInMinutes > MAX_INVITE_VALIDITY_MINUTES)) throw badRequest('Invalid invite_expires_in_minutes');
    const invite = await insertInvite(actor.sql, { ...checkedGrant(actor, user, input), key: generateInviteKey() });
    state.multiuseInvites.set(invite.id, invite);
    notifyInvitesChanged(actor, user.id);
    return inviteLink(actor, invite);
  });
}

/** DELETE /invites/multiuse/{id}: its creator or an administrator (owner links: owners). */
export function revokeMultiuseInvite(actor: RealmActor, acting: User, inviteId: number): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireNonGuest(user);
    const invite = actor.state.multiuseInvites.get(inviteId);
    if (!invite) throw badRequest('No such invitation');
    if (invite.revoked) throw badRequest('Invitation has already been revoked');
    if (!isAdmin(user) && invite.referredBy !== user.id) throw mustBeAdmin();
    if (invite.invitedAs === Role.OWNER && user.role !== Role.OWNER) throw mustBeOwner();
    await revokeInvite(actor.sql, actor.realm.id, invite.id);
    actor.state.multiuseInvites.delete(invite.id);
    notifyInvitesChanged(actor, invite.referredBy);
  });
}

/** A deactivated user's links die with their account (called inside the actor's turn). */
export async function revokeInvitesOf(actor: RealmActor, userId: number): Promise<void> {
  for (const invite of [...actor.state.multiuseInvites.values()]) {
    if (invite.referredBy !== userId) continue;
    await revokeInvite(actor.sql, actor.realm.id, invite.id);
    actor.state.multiuseInvites.delete(invite.id);
  }
}

export interface InviteSignup {
  key: string;
  email: string;
  password: string;
  fullName: string;
}

const invalidLink = () => badRequest('Invalid invitation link.');
const deadLink = () => badRequest('The confirmation link has expired or been deactivated.');

/** The link for a key, if it is usable in this realm now (by this address, for an email invitation). */
function usableInvite(actor: RealmActor, key: string, email: string): { invite: MultiuseInvite | EmailInvite; creator: User } {
  const invite =
    [...actor.state.multiuseInvites.values()].find((i) => i.key === key) ??
    [...actor.state.emailInvites.values()].find((i) => i.key === key);
  if (!invite) throw invalidLink();
  if ('email' in invite && invite.email.toLowerCase() !== email.trim().toLowerCase()) throw badRequest('This invitation is for another email address.');
  if (('revoked' in invite && invite.revoked) || inviteExpired(invite)) throw deadLink();
  const creator = actor.user(invite.referredBy);
  if (!creator || !creator.isActive) throw deadLink();
  // The link never grants more than its creator could grant today.
  if (roleGrantError(creator, invite.invitedAs)) throw deadLink();
  return { invite, creator };
}

/**
 * POST /register_with_invite: creates the account with the invitation's role, channels and
 * groups; then the welcome email, and the referrer's notice when they asked for one.
 */
export async function registerWithInvite(actor: RealmActor, input: InviteSignup): Promise<User> {
  const { user, notify } = await createInvitedUser(actor, input);
  queueEmailsInBackground(actor.services, [welcomeEmailOf(actor, user)]);
  if (notify !== null) {
    await sendInternalMessage(actor, { to: { userIds: [notify] }, content: `${silentMention(user)} accepted your invitation to join ${actor.realm.name}!` });
  }
  return user;
}

function createInvitedUser(actor: RealmActor, input: InviteSignup): Promise<{ user: User; notify: number | null }> {
  return actor.exclusive(async () => {
    const { invite } = usableInvite(actor, input.key, input.email);
    const state = actor.state;
    const streams = new Map<number, Stream>();
    for (const id of invite.streamIds) {
      const s = state.streams.get(id);
      if (s && !s.isArchived) streams.set(s.id, s);
    }
    if (invite.includeRealmDefaultSubscriptions) {
      for (const s of state.streams.values()) if (s.isDefault && !s.isArchived) streams.set(s.id, s);
    }
    const groups = invite.groupIds.map((id) => state.groups.get(id)).filter((g): g is UserGroup => !!g && !g.deactivated && !g.isSystemGroup);
    const visibility = realmUserDefault(actor, 'email_address_visibility');

    const { user, subs } = await actor.sql.begin(async (tx) => {
      let created = await insertNewUser(tx, actor.realm.id, {
        email: input.email,
        password: input.password,
        fullName: input.fullName,
        role: invite.invitedAs,
        settings: newUserSettings(actor.realm.settings),
      });
      if (created.settings.email_address_visibility !== visibility) {
        created = { ...created, settings: { ...created.settings, email_address_visibility: visibility } };
        await saveUser(tx, created);
      }
      for (const g of groups) await addGroupMembers(tx, g.id, [created.id]);
      const subs: Subscription[] = [...streams.values()].map((s) => ({
        userId: created.id, streamId: s.id, active: true, color: '#c2c2c2', isMuted: false, pinToTop: false,
        desktopNotifications: null, audibleNotifications: null, pushNotifications: null, emailNotifications: null,
        wildcardMentionsNotify: null,
      }));
      for (const sub of subs) await saveSubscription(tx, sub);
      await insertSubscriptionLog(tx, subs.map((s) => ({ userId: created.id, streamId: s.streamId, event: 'subscribed' as const, messageIdAt: state.maxMessageId })));
      return { user: created, subs };
    });

    announceUser(actor, user);
    for (const g of groups) {
      state.groups.set(g.id, { ...g, members: new Set([...g.members, user.id]) });
      actor.events.publish(userGroupMembersEvent('add_members', g.id, [user.id]), state.activeUsers().map((u) => u.id));
    }
    for (const sub of subs) state.putSubscription(sub);
    if (subs.length) {
      publishSubscriptionAdd(actor, user, [...streams.values()]);
      publishPeerEvents(actor, 'peer_add', new Map([...streams.values()].map((s) => [s, new Set([user.id])])));
    }
    // Every pending email invitation of this address is used up by the new account.
    const used = [...state.emailInvites.values()].filter((i) => i.email.toLowerCase() === user.deliveryEmail.toLowerCase());
    await setEmailInviteStatus(actor.sql, actor.realm.id, used.map((i) => i.id), InviteStatus.USED);
    for (const i of used) state.emailInvites.delete(i.id);
    notifyInvitesChanged(actor, invite.referredBy);
    const notify = 'notifyReferrerOnJoin' in invite && invite.notifyReferrerOnJoin && invite.referredBy !== user.id ? invite.referredBy : null;
    return { user, notify };
  });
}
