// Account emails: the welcome of a new user and the notice of a new login.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { OutgoingEmail } from '../../db/emailOutbox.js';
import { userSettingValue } from '../../model/userSettings.js';
import { newLoginEmail, welcomeEmail } from '../../views/emails/account.js';
import { queueEmailsInBackground } from './outbox.js';

export function welcomeEmailOf(actor: RealmActor, user: User): OutgoingEmail {
  return {
    realmId: actor.realm.id,
    kind: 'welcome',
    to: user.deliveryEmail,
    fromName: actor.realm.name,
    replyTo: null,
    ...welcomeEmail(actor.services.config, actor.realm, user),
  };
}

/** A login with a password from the web client, as Zulip's email_on_new_login (enable_login_emails). */
export function notifyNewLogin(actor: RealmActor, user: User, client: string): void {
  if (user.isBot || userSettingValue(user.settings, 'enable_login_emails') !== true) return;
  // A just-created account logs in at once: Zulip sends no notice within its first minute.
  if (Date.now() - user.dateJoined.getTime() < 60_000) return;
  queueEmailsInBackground(actor.services, [
    {
      realmId: actor.realm.id,
      kind: 'new_login',
      to: user.deliveryEmail,
      fromName: actor.realm.name,
      replyTo: null,
      ...newLoginEmail(actor.services.config, actor.realm, user, client, new Date()),
    },
  ]);
}
