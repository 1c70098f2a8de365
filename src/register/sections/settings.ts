// Register sections about the caller's own settings and data: `user_settings`, the legacy
// `update_display_settings` / `update_global_notifications` keys, `alert_words`, `presence`.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { EMOJISET_CHOICES, NOTIFICATION_SOUNDS, REALM_DEFAULT_SETTING_NAMES, USER_SETTINGS, USER_SETTING_NAMES, userSettingValue } from '../../model/userSettings.js';
import { DEFAULT_USER_SETTINGS } from '../../model/types.js';
import { usesUserSettingsObject } from '../../events/shape.js';
import { realmPresences, nowSeconds } from '../../views/presence.js';
import type { RegisterArgs } from '../args.js';

function settingsOf(user: User, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) out[name] = userSettingValue(user.settings, name);
  return out;
}

export function userSettingsSection(_actor: RealmActor, user: User): Record<string, unknown> {
  return {
    user_settings: {
      ...settingsOf(user, USER_SETTING_NAMES),
      timezone: user.timezone,
      emojiset_choices: EMOJISET_CHOICES,
      available_notification_sounds: NOTIFICATION_SOUNDS,
    },
  };
}

/** Top-level display settings for clients older than the user_settings object. */
export function legacyDisplaySettingsSection(_actor: RealmActor, user: User, args: RegisterArgs): Record<string, unknown> {
  if (usesUserSettingsObject(args)) return {};
  const names = USER_SETTING_NAMES.filter((n) => USER_SETTINGS[n]!.legacy === 'display');
  return { ...settingsOf(user, names), emojiset_choices: EMOJISET_CHOICES, timezone: user.timezone };
}

/** Top-level notification settings for clients older than the user_settings object. */
export function legacyNotificationSettingsSection(_actor: RealmActor, user: User, args: RegisterArgs): Record<string, unknown> {
  if (usesUserSettingsObject(args)) return {};
  const names = USER_SETTING_NAMES.filter((n) => USER_SETTINGS[n]!.legacy === 'notification');
  return { ...settingsOf(user, names), available_notification_sounds: NOTIFICATION_SOUNDS };
}

/** The full set of defaults new users get, over whatever the organization stored. */
export function realmUserSettingsDefaults(stored: Record<string, unknown>): Record<string, unknown> {
  // Zulip lists default_language among them too, though new users take the organization's
  // language (PATCH /realm) and this default cannot be changed.
  const out: Record<string, unknown> = { default_language: DEFAULT_USER_SETTINGS.default_language };
  for (const name of REALM_DEFAULT_SETTING_NAMES) out[name] = DEFAULT_USER_SETTINGS[name];
  return { ...out, ...stored, emojiset_choices: EMOJISET_CHOICES, available_notification_sounds: NOTIFICATION_SOUNDS };
}

export function alertWordsSection(actor: RealmActor, user: User): Record<string, unknown> {
  return { alert_words: [...(actor.state.alertWords.get(user.id) ?? [])] };
}

export function presenceSection(actor: RealmActor, user: User, args: RegisterArgs): Record<string, unknown> {
  const slim = args.slim_presence || args.presence_last_update_id !== undefined;
  const { presences, presence_last_update_id } = realmPresences(actor.services.config, actor.state, user, {
    slim,
    lastUpdateId: args.presence_last_update_id,
    historyDays: args.presence_history_limit_days,
  });
  return { presences, presence_last_update_id, server_timestamp: nowSeconds() };
}
