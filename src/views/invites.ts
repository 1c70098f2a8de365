// Invitations as the API shows them.
import type { RealmActor } from '../realm/actor.js';
import type { EmailInvite, MultiuseInvite, User } from '../model/types.js';
import { realmUrl } from '../http/urls.js';
import { isAdmin } from '../model/roles.js';
import { requireNonGuest } from '../permissions/roles.js';

export function inviteLink(actor: RealmActor, invite: MultiuseInvite | EmailInvite): string {
  return `${realmUrl(actor.services.config, actor.realm)}/join/${invite.key}/`;
}

export const inviteExpired = (invite: Pick<MultiuseInvite, 'expiresAt'>, now = Date.now()) => invite.expiresAt !== null && invite.expiresAt.getTime() <= now;

/** GET /invites: administrators see every live invitation, others their own; email ones first. */
export function listInvites(actor: RealmActor, user: User): Record<string, unknown>[] {
  requireNonGuest(user);
  const byEmail = [...actor.state.emailInvites.values()]
    .filter((i) => !inviteExpired(i) && (isAdmin(user) || i.referredBy === user.id))
    .sort((a, b) => a.id - b.id)
    .map((i) => ({
      id: i.id,
      invited_by_user_id: i.referredBy,
      invited: Math.floor(i.invitedAt.getTime() / 1000),
      expiry_date: i.expiresAt === null ? null : Math.floor(i.expiresAt.getTime() / 1000),
      invited_as: i.invitedAs,
      email: i.email,
      notify_referrer_on_join: i.notifyReferrerOnJoin,
      is_multiuse: false,
    }));
  const links = [...actor.state.multiuseInvites.values()]
    .filter((i) => !i.revoked && !inviteExpired(i) && (isAdmin(user) || i.referredBy === user.id))
    .sort((a, b) => a.id - b.id)
    .map((i) => ({
      id: i.id,
      invited_by_user_id: i.referredBy,
      invited: Math.floor(i.createdAt.getTime() / 1000),
      expiry_date: i.expiresAt === null ? null : Math.floor(i.expiresAt.getTime() / 1000),
      invited_as: i.invitedAs,
      link_url: inviteLink(actor, i),
      is_multiuse: true,
    }));
  return [...byEmail, ...links];
}
