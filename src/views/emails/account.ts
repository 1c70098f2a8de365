// The emails about accounts: an invitation, the welcome of a new user, the confirmation of a
// new email address, and the notice of a new login.
import type { Config } from '../../config.js';
import type { RealmRecord, User } from '../../model/types.js';
import { realmUrl } from '../../http/urls.js';
import { escapeHtml, frame, link } from './layout.js';

type Realm = Pick<RealmRecord, 'stringId' | 'name'>;

export function invitationEmail(config: Config, realm: Realm, referrer: User, joinUrl: string, expiresAt: Date | null) {
  const expiry = expiresAt === null ? 'It does not expire.' : `It expires on ${expiresAt.toUTCString()}.`;
  return frame(config, realm, {
    subject: `${referrer.fullName} invited you to join ${realm.name}`,
    text: [
      `${referrer.fullName} (${referrer.deliveryEmail}) invited you to join ${realm.name}, a team chat organization.`,
      `Create your account here: ${joinUrl}`,
      `This link works once, for this email address only. ${expiry}`,
    ],
    html: [
      `${escapeHtml(referrer.fullName)} (${escapeHtml(referrer.deliveryEmail)}) invited you to join <b>${escapeHtml(realm.name)}</b>, a team chat organization.`,
      `${link(joinUrl, 'Create your account')}: ${link(joinUrl)}`,
      `This link works once, for this email address only. ${escapeHtml(expiry)}`,
    ],
  });
}

export function welcomeEmail(config: Config, realm: Realm, user: User) {
  const url = realmUrl(config, realm);
  return frame(config, realm, {
    subject: `Welcome to ${realm.name}`,
    text: [
      `Welcome to ${realm.name}, ${user.fullName}!`,
      `Your account uses the email address ${user.deliveryEmail}. Log in at ${url}`,
    ],
    html: [
      `Welcome to <b>${escapeHtml(realm.name)}</b>, ${escapeHtml(user.fullName)}!`,
      `Your account uses the email address ${escapeHtml(user.deliveryEmail)}. ${link(url, 'Log in')}.`,
    ],
  });
}

export function confirmNewEmailEmail(config: Config, realm: Realm, oldEmail: string, newEmail: string, confirmUrl: string) {
  return frame(config, realm, {
    subject: `Confirm your new email address for ${realm.name}`,
    text: [
      `We received a request to change the email address of your account in ${realm.name} from ${oldEmail} to ${newEmail}.`,
      `To confirm this change, open: ${confirmUrl}`,
      'If you did not request this change, ignore this email: nothing changes without the confirmation.',
    ],
    html: [
      `We received a request to change the email address of your account in <b>${escapeHtml(realm.name)}</b> from ${escapeHtml(oldEmail)} to ${escapeHtml(newEmail)}.`,
      `${link(confirmUrl, 'Confirm the change')}: ${link(confirmUrl)}`,
      'If you did not request this change, ignore this email: nothing changes without the confirmation.',
    ],
  });
}

export function newLoginEmail(config: Config, realm: Realm, user: User, client: string, when: Date) {
  const url = realmUrl(config, realm);
  return frame(config, realm, {
    subject: `New login to ${realm.name}`,
    text: [
      `Your account ${user.deliveryEmail} in ${realm.name} was just logged in to.`,
      `Time: ${when.toUTCString()}\nClient: ${client}`,
      `If this was not you, change your password at ${url}/#settings/account-and-privacy and contact an administrator.`,
    ],
    html: [
      `Your account ${escapeHtml(user.deliveryEmail)} in <b>${escapeHtml(realm.name)}</b> was just logged in to.`,
      `Time: ${escapeHtml(when.toUTCString())}<br>Client: ${escapeHtml(client)}`,
      `If this was not you, ${link(`${url}/#settings/account-and-privacy`, 'change your password')} and contact an administrator.`,
    ],
  });
}
