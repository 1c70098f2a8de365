// Invitations by email (POST /invites, DELETE /invites/{id}, POST /invites/{id}/resend). The
// same rights as invitation links (role, channels, groups: actions/realm/invites.ts), plus
// Zulip's checks of the addresses and its per-day limit on invitation emails. Each invitation
// is a one-time key for one address; the email carries its link.
import { ApiError, badRequest, mustBeOwner } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import { Role, type EmailInvite, type User } from '../../model/types.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { actingUser, requireNonGuest } from '../../permissions/roles.js';
import { isAdmin } from '../../model/roles.js';
import { insertEmailInvite, invitationSendsSince, InviteStatus, recordInvitationSends, setEmailInviteStatus } from '../../db/emailInvites.js';
import { inviteLink } from '../../views/invites.js';
import { invitationEmail } from '../../views/emails/account.js';
import { checkEmail } from '../users/create.js';
import { checkedGrant, generateInviteKey, notifyInvitesChanged, roleGrantError, type InviteGrantInput } from './invites.js';
import { queueEmailsInBackground } from '../email/outbox.js';

/** Zulip's INVITES_DEFAULT_REALM_DAILY_MAX: invitation emails a realm may send in a day. */
export const MAX_INVITES_PER_DAY = 100;
const DAY_MS = 24 * 3600 * 1000;

/** An (address, reason, deactivated) triple of Zulip's InvitationError. */
type InviteProblem = [string, string, boolean];

function invitationError(msg: string, errors: InviteProblem[], sent: boolean, dailyLimit = false): ApiError {
  return new ApiError('INVITATION_FAILED', msg, 400, {
    errors,
    sent_invitations: sent,
    license_limit_reached: false,
    daily_limit_reached: dailyLimit,
  });
}

/** Zulip's get_invitee_emails_set: split on commas and newlines, `Name <address>` allowed. */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    const named = /<(.*)>/.exec(part);
    out.add((named ? named[1]! : part).trim());
  }
  return [...out];
}

/** The role checks of Zulip's check_role_based_permissions. */
function checkRoleRights(user: User, invitedAs: number, requireAdmin: boolean): void {
  if (invitedAs === Role.OWNER && user.role !== Role.OWNER) throw mustBeOwner();
  if (requireAdmin && !isAdmin(user)) throw badRequest('Must be an organization administrator');
}

async function checkDailyLimit(actor: RealmActor, count: number): Promise<void> {
  const recent = await invitationSendsSince(actor.sql, actor.realm.id, new Date(Date.now() - DAY_MS));
  if (recent + count > MAX_INVITES_PER_DAY) {
    throw invitationError(
      'To protect users, Zulip limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.',
      [],
      false,
      true,
    );
  }
}

function invitationEmailOf(actor: RealmActor, invite: EmailInvite, referrer: User) {
  return {
    realmId: actor.realm.id,
    kind: 'invitation',
    to: invite.email,
    fromName: actor.realm.name,
    replyTo: referrer.deliveryEmail,
    ...invitationEmail(actor.services.config, actor.realm, referrer, inviteLink(actor, invite), invite.expiresAt),
  };
}

export interface EmailInviteInput extends InviteGrantInput {
  inviteeEmails: string;
  notifyReferrerOnJoin: boolean;
}

/** POST /invites. */
export function inviteUsersByEmail(actor: RealmActor, acting: User, input: EmailInviteInput): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireNonGuest(user);
    const state = actor.state;
    if (!hasRealmPermission(state, user, 'can_invite_users_group')) throw badRequest('Insufficient permission');
    const roleError = roleGrantError(user, input.invitedAs);
    if (roleError === 'Invalid invite_as') throw badRequest(roleError);
    checkRoleRights(user, input.invitedAs, input.invitedAs <= Role.MODERATOR);
    if (input.inviteeEmails === '') throw badRequest('You must specify at least one email address.');
    if (input.expiresInMinutes !== null && input.expiresInMinutes <= 0) throw badRequest('Invalid invite_expires_in_minutes');
    const emails = parseInviteeEmails(input.inviteeEmails).filter((e) => e !== '');
    if (emails.length === 0) throw badRequest('You must specify at least one email address.');
    const grant = checkedGrant(actor, user, input);
    await checkDailyLimit(actor, emails.length);

    const errors: InviteProblem[] = [];
    const skipped: InviteProblem[] = [];
    const good: string[] = [];
    for (const email of emails) {
      try {
        checkEmail(email);
      } catch {
        errors.push([email, 'Invalid address.', false]);
        continue;
      }
      const existing = [...state.users.values()].find((u) => u.deliveryEmail.toLowerCase() === email.toLowerCase());
      if (existing) skipped.push([email, existing.isActive ? 'Already has an account.' : 'Account has been deactivated.', !existing.isActive]);
      else good.push(email);
    }
    if (errors.length > 0) throw invitationError("Some emails did not validate, so we didn't send any invitations.", [...errors, ...skipped], false);
    if (good.length === 0) throw invitationError("We weren't able to invite anyone.", skipped, false);

    const created = await actor.sql.begin(async (tx) => {
      const out: EmailInvite[] = [];
      for (const email of good) {
        out.push(
          await insertEmailInvite(tx, { ...grant, key: generateInviteKey(), email, notifyReferrerOnJoin: input.notifyReferrerOnJoin }),
        );
      }
      await recordInvitationSends(tx, actor.realm.id, out.length);
      return out;
    });
    for (const invite of created) state.emailInvites.set(invite.id, invite);
    notifyInvitesChanged(actor, user.id);
    queueEmailsInBackground(actor.services, created.map((i) => invitationEmailOf(actor, i, user)));
    if (skipped.length > 0) {
      throw invitationError(
        "Some of those addresses are already using Zulip, so we didn't send them an invitation. We did send invitations to everyone else!",
        skipped,
        true,
      );
    }
  });
}

/** The pending invitation `id`, if the caller controls it (its referrer, or an administrator). */
function controlledInvite(actor: RealmActor, user: User, id: number): EmailInvite {
  requireNonGuest(user);
  const invite = actor.state.emailInvites.get(id);
  if (!invite) throw badRequest('No such invitation');
  if (invite.referredBy !== user.id) checkRoleRights(user, invite.invitedAs, true);
  return invite;
}

/** DELETE /invites/{invite_id}. */
export function revokeEmailInvite(actor: RealmActor, acting: User, id: number): Promise<void> {
  return actor.exclusive(async () => {
    const invite = controlledInvite(actor, actingUser(actor.state, acting), id);
    await setEmailInviteStatus(actor.sql, actor.realm.id, [invite.id], InviteStatus.REVOKED);
    actor.state.emailInvites.delete(invite.id);
    notifyInvitesChanged(actor, invite.referredBy);
  });
}

/** POST /invites/{invite_id}/resend: the same link again, counted against the daily limit. */
export function resendEmailInvite(actor: RealmActor, acting: User, id: number): Promise<void> {
  return actor.exclusive(async () => {
    const invite = controlledInvite(actor, actingUser(actor.state, acting), id);
    await checkDailyLimit(actor, 1);
    await recordInvitationSends(actor.sql, actor.realm.id, 1);
    const referrer = actor.user(invite.referredBy);
    if (!referrer) throw badRequest('No such invitation');
    queueEmailsInBackground(actor.services, [invitationEmailOf(actor, invite, referrer)]);
  });
}

/** A deactivated user's pending email invitations die with their account (inside the actor's turn). */
export async function revokeEmailInvitesOf(actor: RealmActor, userId: number): Promise<void> {
  const theirs = [...actor.state.emailInvites.values()].filter((i) => i.referredBy === userId);
  await setEmailInviteStatus(actor.sql, actor.realm.id, theirs.map((i) => i.id), InviteStatus.REVOKED);
  for (const i of theirs) actor.state.emailInvites.delete(i.id);
}
