// Events about users and their settings, shared by the actions that change them. Each goes
// only to its audience: changes of a user to those who can see the user, personal settings
// to the user's own queues.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { apiEmail, avatarUrl } from '../../views/users.js';
import { canSeeRealEmail } from '../../permissions/email.js';
import { usersWhoCanAccess } from '../../permissions/userAccess.js';
import { USER_SETTINGS } from '../../model/userSettings.js';
import { LANGUAGE_NAMES } from '../../model/languages.js';
import { EmailVisibility } from '../../model/types.js';
import { botAudience } from '../../permissions/bots.js';
import { realmUserUpdateEvent, realmUserRemoveEvent, userSettingsEvent, notificationSettingsEvent, displaySettingsEvent, realmBotUpdateEvent, type PersonChange, type BotChange } from '../../events/catalog/index.js';

/** `realm_user` update about a user, to everyone who can see the user. */
export function publishRealmUserUpdate(actor: RealmActor, user: User, change: PersonChange): void {
  actor.events.publish(realmUserUpdateEvent(user.id, change), usersWhoCanAccess(actor.state, user));
}

import { INACCESSIBLE_USER_NAME } from '../../views/users.js';
export { INACCESSIBLE_USER_NAME };

/** `realm_user` remove: the user is no longer visible to these users (Zulip names them "Unknown user"). */
export function publishRealmUserRemove(actor: RealmActor, user: User, userIds: Iterable<number>): void {
  actor.events.publish(realmUserRemoveEvent(user.id, INACCESSIBLE_USER_NAME), userIds);
}

/** The avatar fields of a `realm_user` update (sent when the avatar URL changes). */
export function publishAvatarUpdate(actor: RealmActor, user: User): void {
  // As Zulip: a bot's owner and the administrators also get it as a realm_bot update.
  if (user.isBot) publishBotUpdate(actor, user, { avatar_url: avatarUrl(user) });
  publishRealmUserUpdate(actor, user, {
    avatar_source: user.avatarSource,
    avatar_url: avatarUrl(user),
    avatar_url_medium: avatarUrl(user, true),
    avatar_version: user.avatarVersion,
  });
}

/**
 * A personal setting changed: `user_settings` update to the user's queues, plus the legacy
 * `update_display_settings` / `update_global_notifications` forms for settings older than
 * feature level 89 (the hub withholds those from clients with `user_settings_object`).
 */
export function publishSettingChange(actor: RealmActor, user: User, name: string, value: string | number | boolean): void {
  const languageName = name === 'default_language' ? (LANGUAGE_NAMES[value as string] ?? String(value)) : undefined;
  actor.events.publish(userSettingsEvent(name, value, languageName), [user.id]);
  const legacy = name === 'timezone' ? 'display' : USER_SETTINGS[name]?.legacy;
  const email = apiEmail(actor.services.config, actor.realm, user);
  if (legacy === 'notification') {
    actor.events.publish(notificationSettingsEvent(email, name, value), [user.id]);
  } else if (legacy === 'display') {
    actor.events.publish(displaySettingsEvent(email, name, value, languageName), [user.id]);
  }
}

/**
 * Email visibility changed: users who gain access to the real address get it, users who lose
 * it get null; when the change is to or from "everyone", the API email itself changed (and
 * with it the Gravatar-based avatar URL clients compute).
 */
export function publishEmailVisibilityChange(actor: RealmActor, user: User, oldVisibility: number): void {
  const before = { ...user, settings: { ...user.settings, email_address_visibility: oldVisibility } };
  const gained: number[] = [];
  const lost: number[] = [];
  for (const id of usersWhoCanAccess(actor.state, user)) {
    const viewer = actor.state.users.get(id)!;
    const could = canSeeRealEmail(viewer, before);
    const can = canSeeRealEmail(viewer, user);
    if (could !== can) (can ? gained : lost).push(id);
  }
  const event = (deliveryEmail: string | null) => realmUserUpdateEvent(user.id, { delivery_email: deliveryEmail });
  if (gained.length) actor.events.publish(event(user.deliveryEmail), gained);
  if (lost.length) actor.events.publish(event(null), lost);
  const newVisibility = user.settings.email_address_visibility;
  if (oldVisibility !== EmailVisibility.EVERYONE && newVisibility !== EmailVisibility.EVERYONE) return;
  publishRealmUserUpdate(actor, user, { new_email: apiEmail(actor.services.config, actor.realm, user) });
  publishAvatarUpdate(actor, user);
}

/** `realm_bot` update with the changed fields, to the bot's owner and the administrators. */
export function publishBotUpdate(actor: RealmActor, bot: User, change: BotChange): void {
  actor.events.publish(realmBotUpdateEvent(bot.id, change), botAudience(actor.state, bot));
}
