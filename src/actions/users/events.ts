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

/** `realm_user` update with `person` (which must carry `user_id`) to everyone who can see the user. */
export function publishRealmUserUpdate(actor: RealmActor, user: User, person: Record<string, unknown>): void {
  actor.events.publish({ type: 'realm_user', op: 'update', person: { user_id: user.id, ...person } }, usersWhoCanAccess(actor.state, user));
}

/** `realm_user` remove: the user is no longer visible to these users (Zulip sends only id and name). */
export function publishRealmUserRemove(actor: RealmActor, user: User, userIds: Iterable<number>): void {
  actor.events.publish({ type: 'realm_user', op: 'remove', person: { user_id: user.id, full_name: user.fullName } }, userIds);
}

/** The avatar fields of a `realm_user` update (sent when the avatar URL changes). */
export function publishAvatarUpdate(actor: RealmActor, user: User): void {
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
export function publishSettingChange(actor: RealmActor, user: User, name: string, value: unknown): void {
  const languageName = name === 'default_language' ? { language_name: LANGUAGE_NAMES[value as string] ?? value } : {};
  actor.events.publish({ type: 'user_settings', op: 'update', property: name, value, ...languageName }, [user.id]);
  const legacy = name === 'timezone' ? 'display' : USER_SETTINGS[name]?.legacy;
  const email = apiEmail(actor.services.config, actor.realm, user);
  if (legacy === 'notification') {
    actor.events.publish({ type: 'update_global_notifications', user: email, notification_name: name, setting: value }, [user.id]);
  } else if (legacy === 'display') {
    actor.events.publish({ type: 'update_display_settings', user: email, setting_name: name, setting: value, ...languageName }, [user.id]);
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
  const event = (deliveryEmail: string | null) => ({ type: 'realm_user', op: 'update', person: { user_id: user.id, delivery_email: deliveryEmail } });
  if (gained.length) actor.events.publish(event(user.deliveryEmail), gained);
  if (lost.length) actor.events.publish(event(null), lost);
  const newVisibility = user.settings.email_address_visibility;
  if (oldVisibility !== EmailVisibility.EVERYONE && newVisibility !== EmailVisibility.EVERYONE) return;
  publishRealmUserUpdate(actor, user, { new_email: apiEmail(actor.services.config, actor.realm, user) });
  publishAvatarUpdate(actor, user);
}

/** `realm_bot` update with the changed fields, to the bot's owner and the administrators. */
export function publishBotUpdate(actor: RealmActor, bot: User, fields: Record<string, unknown>): void {
  actor.events.publish({ type: 'realm_bot', op: 'update', bot: { user_id: bot.id, ...fields } }, botAudience(actor.state, bot));
}
