// Changing one's email address (PATCH /settings with `email`): nothing changes until the link
// mailed to the new address is opened (GET /accounts/confirm_new_email/{key}/). Zulip's checks
// first: the realm may forbid changes to non-administrators, the address must be valid and
// not in use in the realm, and a user may start two changes an hour, five a day.
import { randomBytes } from 'node:crypto';
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { isAdmin } from '../../model/roles.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import { actingUser } from '../../permissions/roles.js';
import { canSeeRealEmail } from '../../permissions/email.js';
import { usersWhoCanAccess } from '../../permissions/userAccess.js';
import { EmailVisibility } from '../../model/types.js';
import { applyEmailChange, findEmailChange, insertEmailChange } from '../../db/emailChanges.js';
import { realmUrl } from '../../http/urls.js';
import { confirmNewEmailEmail } from '../../views/emails/account.js';
import { apiEmail } from '../../views/users.js';
import { realmUserUpdateEvent } from '../../events/catalog/index.js';
import { checkEmail } from '../users/create.js';
import { publishAvatarUpdate, publishRealmUserUpdate } from '../users/events.js';
import { queueEmailsInBackground } from './outbox.js';
import { CacheKey } from '../../realm/caches.js';
import { rateLimitHit, TokenBuckets, type RateRule } from '../../auth/rateLimit.js';

/** Zulip's email_change_by_user rules: 2 an hour and 5 a day per user. */
const EMAIL_CHANGE_RULES: RateRule[] = [
  { requests: 2, seconds: 3600 },
  { requests: 5, seconds: 86400 },
];
const emailChangeBuckets = new CacheKey('email change rate limits', () => EMAIL_CHANGE_RULES.map(() => new TokenBuckets()));

/** Counts one email change of the user, or refuses it (429) past Zulip's limits. */
function takeEmailChange(actor: RealmActor, userId: number): void {
  const buckets = actor.caches.get(emailChangeBuckets);
  const key = String(userId);
  for (const [i, rule] of EMAIL_CHANGE_RULES.entries()) {
    const v = buckets[i]!.peek(key, rule);
    if (!v.allowed) throw rateLimitHit(v.retryAfter);
  }
  for (const [i, rule] of EMAIL_CHANGE_RULES.entries()) buckets[i]!.take(key, rule);
}

/** Zulip's validity of an email change confirmation. */
const CONFIRMATION_VALIDITY_MS = 24 * 3600 * 1000;

const emailInUse = (actor: RealmActor, email: string, exceptId: number) =>
  [...actor.state.users.values()].some((u) => u.id !== exceptId && u.deliveryEmail.toLowerCase() === email.toLowerCase());

export function confirmEmailChangeUrl(actor: RealmActor, key: string): string {
  return `${realmUrl(actor.services.config, actor.realm)}/accounts/confirm_new_email/${key}/`;
}

/** PATCH /settings `email`: mails a confirmation link to the new address. */
export function startEmailChange(actor: RealmActor, acting: User, rawEmail: string): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    const email = rawEmail.trim();
    if (email === user.deliveryEmail) return;
    if (realmProperty(actor.state, 'email_changes_disabled') === true && !isAdmin(user)) {
      throw badRequest('Email address changes are disabled in this organization.');
    }
    checkEmail(email);
    if (emailInUse(actor, email, user.id)) throw badRequest('Already has an account.');
    takeEmailChange(actor, user.id);
    const key = randomBytes(12).toString('hex');
    await insertEmailChange(actor.sql, {
      key,
      realmId: actor.realm.id,
      userId: user.id,
      oldEmail: user.deliveryEmail,
      newEmail: email,
      expiresAt: new Date(Date.now() + CONFIRMATION_VALIDITY_MS),
    });
    const mail = confirmNewEmailEmail(actor.services.config, actor.realm, user.deliveryEmail, email, confirmEmailChangeUrl(actor, key));
    queueEmailsInBackground(actor.services, [{ realmId: actor.realm.id, kind: 'confirm_new_email', to: email, fromName: actor.realm.name, replyTo: null, ...mail }]);
  });
}

/** The confirmation link: the address changes, and everyone who sees it hears of it. */
export function confirmEmailChange(actor: RealmActor, key: string): Promise<void> {
  return actor.exclusive(async () => {
    const change = await findEmailChange(actor.sql, actor.realm.id, key);
    if (!change || change.expiresAt.getTime() <= Date.now()) throw badRequest('The confirmation link has expired or been deactivated.');
    const user = actor.user(change.userId);
    if (!user || !user.isActive) throw badRequest('The confirmation link has expired or been deactivated.');
    if (emailInUse(actor, change.newEmail, user.id)) throw badRequest('Already has an account.');
    await applyEmailChange(actor.sql, change);
    const updated: User = { ...user, deliveryEmail: change.newEmail };
    actor.state.putUser(updated);
    const viewers = usersWhoCanAccess(actor.state, updated).filter((id) => canSeeRealEmail(actor.state.users.get(id) ?? null, updated));
    actor.events.publish(realmUserUpdateEvent(updated.id, { delivery_email: updated.deliveryEmail }), viewers);
    if (updated.settings.email_address_visibility === EmailVisibility.EVERYONE) {
      publishRealmUserUpdate(actor, updated, { new_email: apiEmail(actor.services.config, actor.realm, updated) });
      publishAvatarUpdate(actor, updated);
    }
  });
}
