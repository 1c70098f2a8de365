// The catalog of personal settings (Zulip's UserBaseSettings): each setting's type, allowed
// values and which legacy event form announces it. Defaults live in DEFAULT_USER_SETTINGS.
import { DEFAULT_USER_SETTINGS } from './types.js';
import { LANGUAGE_NAMES } from './languages.js';

export type SettingSpec =
  | { kind: 'bool' }
  | { kind: 'int'; choices?: readonly number[]; min?: number; max?: number }
  | { kind: 'string'; choices: readonly string[] };

/** Which pre-FL-89 event announces a change: update_display_settings or update_global_notifications. */
export type LegacyForm = 'display' | 'notification' | null;

interface Entry {
  spec: SettingSpec;
  legacy: LegacyForm;
}

const bool = (legacy: LegacyForm = null): Entry => ({ spec: { kind: 'bool' }, legacy });
const oneOf = (choices: readonly number[], legacy: LegacyForm = null): Entry => ({ spec: { kind: 'int', choices }, legacy });
const text = (choices: readonly string[], legacy: LegacyForm = null): Entry => ({ spec: { kind: 'string', choices }, legacy });

export const EMOJISET_CHOICES = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
  { key: 'google-blob', text: 'Google blobs' },
];

export const NOTIFICATION_SOUNDS = [
  'ascend', 'beep_boop', 'bink', 'bright', 'brlip', 'chime', 'deep tom', 'ding', 'double tap', 'down',
  'dry bongos', 'dutdut', 'fast ascend', 'flute', 'friendly', 'kick roll', 'loud tintong',
  'metallic snare', 'pan', 'practicechat', 'shaker', 'simple', 'stairs', 'subtle', 'swish', 'tintong',
  'up', 'wood block', 'zaping', 'zing', 'zulip',
];

const AUTOMATIC_VISIBILITY_POLICIES = [1, 2, 3, 4];
const ONE_WEEK_SECONDS = 7 * 24 * 3600;

export const USER_SETTINGS: Record<string, Entry> = {
  // Display settings announced by the legacy update_display_settings event.
  color_scheme: oneOf([1, 2, 3], 'display'),
  default_language: text(Object.keys(LANGUAGE_NAMES), 'display'),
  web_home_view: text(['recent_topics', 'inbox', 'all_messages'], 'display'),
  demote_inactive_streams: oneOf([1, 2, 3], 'display'),
  emojiset: text(EMOJISET_CHOICES.map((e) => e.key), 'display'),
  enable_drafts_synchronization: bool('display'),
  enter_sends: bool('display'),
  fluid_layout_width: bool('display'),
  high_contrast_mode: bool('display'),
  left_side_userlist: bool('display'),
  starred_message_counts: bool('display'),
  translate_emoticons: bool('display'),
  twenty_four_hour_time: bool('display'),
  // Notification settings announced by the legacy update_global_notifications event.
  desktop_icon_count_display: oneOf([1, 2, 3, 4], 'notification'),
  email_notifications_batching_period_seconds: { spec: { kind: 'int', min: 1, max: ONE_WEEK_SECONDS }, legacy: 'notification' },
  enable_desktop_notifications: bool('notification'),
  enable_digest_emails: bool('notification'),
  enable_login_emails: bool('notification'),
  enable_marketing_emails: bool('notification'),
  enable_offline_email_notifications: bool('notification'),
  enable_offline_push_notifications: bool('notification'),
  enable_online_push_notifications: bool('notification'),
  enable_sounds: bool('notification'),
  enable_stream_audible_notifications: bool('notification'),
  enable_stream_desktop_notifications: bool('notification'),
  enable_stream_email_notifications: bool('notification'),
  enable_stream_push_notifications: bool('notification'),
  message_content_in_email_notifications: bool('notification'),
  notification_sound: text([...NOTIFICATION_SOUNDS, 'none'], 'notification'),
  pm_content_in_desktop_notifications: bool('notification'),
  presence_enabled: bool('notification'),
  realm_name_in_email_notifications_policy: oneOf([1, 2, 3], 'notification'),
  wildcard_mentions_notify: bool('notification'),
  // Settings added after the user_settings event (feature level 89): no legacy form.
  display_emoji_reaction_users: bool(),
  email_address_visibility: oneOf([1, 2, 3, 4, 5]),
  web_escape_navigates_to_home_view: bool(),
  receives_typing_notifications: bool(),
  send_private_typing_notifications: bool(),
  send_read_receipts: bool(),
  send_stream_typing_notifications: bool(),
  allow_private_data_export: bool(),
  web_mark_read_on_scroll_policy: oneOf([1, 2, 3]),
  web_channel_default_view: oneOf([1, 2, 3, 4]),
  user_list_style: oneOf([1, 2, 3]),
  web_animate_image_previews: text(['always', 'on_hover', 'never']),
  web_stream_unreads_count_display_policy: oneOf([1, 2, 3]),
  web_font_size_px: { spec: { kind: 'int', min: 1, max: 1000 }, legacy: null },
  web_line_height_percent: { spec: { kind: 'int', min: 1, max: 1000 }, legacy: null },
  web_navigate_to_sent_message: bool(),
  web_suggest_update_timezone: bool(),
  web_left_sidebar_unreads_count_summary: bool(),
  hide_ai_features: bool(),
  resolved_topic_notice_auto_read_policy: text(['always', 'except_followed', 'never']),
  enable_followed_topic_desktop_notifications: bool(),
  enable_followed_topic_email_notifications: bool(),
  enable_followed_topic_push_notifications: bool(),
  enable_followed_topic_audible_notifications: bool(),
  enable_followed_topic_wildcard_mentions_notify: bool(),
  automatically_follow_topics_policy: oneOf(AUTOMATIC_VISIBILITY_POLICIES),
  automatically_unmute_topics_in_muted_streams_policy: oneOf(AUTOMATIC_VISIBILITY_POLICIES),
  automatically_follow_topics_where_mentioned: bool(),
};

export const USER_SETTING_NAMES = Object.keys(USER_SETTINGS);

/** Settings that are not realm-level defaults for new users (the realm has its own language). */
const NOT_REALM_DEFAULTS = new Set(['default_language']);
export const REALM_DEFAULT_SETTING_NAMES = USER_SETTING_NAMES.filter((n) => !NOT_REALM_DEFAULTS.has(n));

/** A user's effective value of a setting (stored value over the default). */
export function userSettingValue(settings: Record<string, unknown>, name: string): unknown {
  return settings[name] ?? DEFAULT_USER_SETTINGS[name];
}

/** A personal setting's value: every setting is a boolean, a number or a string. */
export type SettingValue = string | number | boolean;

/** Checks a value against its setting's allowed values; returns an error message or null. */
export function checkSettingValue(name: string, value: unknown): string | null {
  const entry = USER_SETTINGS[name];
  if (!entry) return `Invalid ${name}`;
  const { spec } = entry;
  switch (spec.kind) {
    case 'bool':
      return typeof value === 'boolean' ? null : `${name} is not a boolean`;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${name} is not an integer`;
      if (spec.choices && !spec.choices.includes(value)) return `Invalid ${name}`;
      if (name === 'email_notifications_batching_period_seconds' && (value < spec.min! || value > spec.max!)) {
        return `Invalid email batching period: ${value} seconds`;
      }
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) return `Invalid ${name}`;
      return null;
    case 'string':
      if (typeof value !== 'string') return `${name} is not a string`;
      if (name === 'notification_sound' && !spec.choices.includes(value)) return `Invalid notification sound '${value}'`;
      if (name === 'default_language' && !spec.choices.includes(value)) return 'Invalid default_language';
      return spec.choices.includes(value) ? null : `Invalid ${name}`;
  }
}
