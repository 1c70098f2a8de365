// The in-memory model of a realm. Plain data; the actor owns it and is its only writer.

export const Role = { OWNER: 100, ADMINISTRATOR: 200, MODERATOR: 300, MEMBER: 400, GUEST: 600 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];
export const ROLES: readonly number[] = Object.values(Role);

/** Zulip's bot types (`bot_type`). */
export const BotType = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;

/** The namespaces of emoji in reactions: Unicode, the realm's custom emoji, Zulip's own. */
export type ReactionType = 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';

export const EmailVisibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

export interface UserSettings {
  email_address_visibility: number;
  [key: string]: unknown;
}

export interface User {
  id: number;
  realmId: number;
  deliveryEmail: string;
  fullName: string;
  passwordHash: string | null;
  apiKey: string;
  role: number;
  isActive: boolean;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  timezone: string;
  dateJoined: Date;
  avatarSource: string;
  avatarVersion: number;
  canCreateUsers: boolean;
  settings: UserSettings;
}

export interface RealmSettings {
  enable_spectator_access: boolean;
  waiting_period_threshold: number;
  [key: string]: unknown;
}

export interface RealmRecord {
  id: number;
  stringId: string;
  name: string;
  description: string;
  dateCreated: Date;
  deactivated: boolean;
  settings: RealmSettings;
}

export const DEFAULT_REALM_SETTINGS: RealmSettings = {
  enable_spectator_access: false,
  waiting_period_threshold: 0,
};

/** Every personal setting's default (Zulip's UserBaseSettings); see src/events/userSettings.ts. */
export const DEFAULT_USER_SETTINGS: UserSettings = {
  email_address_visibility: EmailVisibility.EVERYONE,
  // Display.
  color_scheme: 1,
  default_language: 'en',
  web_home_view: 'inbox',
  demote_inactive_streams: 1,
  emojiset: 'google',
  enable_drafts_synchronization: true,
  enter_sends: false,
  fluid_layout_width: false,
  high_contrast_mode: false,
  left_side_userlist: false,
  starred_message_counts: true,
  translate_emoticons: false,
  twenty_four_hour_time: false,
  display_emoji_reaction_users: true,
  web_escape_navigates_to_home_view: true,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  user_list_style: 3,
  web_animate_image_previews: 'on_hover',
  web_stream_unreads_count_display_policy: 2,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  web_navigate_to_sent_message: true,
  web_suggest_update_timezone: true,
  web_left_sidebar_unreads_count_summary: true,
  hide_ai_features: false,
  resolved_topic_notice_auto_read_policy: 'except_followed',
  // Notifications.
  desktop_icon_count_display: 1,
  email_notifications_batching_period_seconds: 120,
  enable_desktop_notifications: true,
  enable_digest_emails: true,
  enable_login_emails: true,
  enable_marketing_emails: true,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_sounds: true,
  enable_stream_audible_notifications: false,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  message_content_in_email_notifications: true,
  notification_sound: 'zulip',
  pm_content_in_desktop_notifications: true,
  presence_enabled: true,
  realm_name_in_email_notifications_policy: 1,
  wildcard_mentions_notify: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
  // Privacy.
  receives_typing_notifications: true,
  send_private_typing_notifications: true,
  send_stream_typing_notifications: true,
  send_read_receipts: true,
  allow_private_data_export: false,
};

/** A user's presence, held in memory only (seconds since the epoch). */
export interface UserPresence {
  lastActiveTime: number | null;
  lastConnectedTime: number;
  /** The realm-wide presence sequence number of this row's last change. */
  lastUpdateId: number;
}

/** A user's status (POST /users/me/status); empty strings mean "not set". */
export interface UserStatus {
  statusText: string;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
}

export interface UserGroup {
  id: number;
  name: string;
  description: string;
  isSystemGroup: boolean;
  deactivated: boolean;
  dateCreated: Date | null;
  creatorId: number | null;
  /** Permission settings of the group itself (can_manage_group, …) as group-setting values. */
  settings: Record<string, unknown>;
  members: Set<number>;
  subgroups: Set<number>;
}

/** A channel. Permission settings are group-setting values keyed by setting name. */
export interface Stream {
  id: number;
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  dateCreated: Date;
  creatorId: number | null;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isArchived: boolean;
  isDefault: boolean;
  /** null: the realm default; -1: keep forever. */
  messageRetentionDays: number | null;
  folderId: number | null;
  topicsPolicy: 'inherit' | 'allow_empty_topic' | 'disable_empty_topic' | 'empty_topic_only';
  settings: Record<string, unknown>;
  /** Id of the oldest message in the channel; null until the first message is sent. */
  firstMessageId: number | null;
  /** Whether a message was sent to the channel recently (Zulip: the last 180 days). */
  isRecentlyActive: boolean;
}

/** One user's subscription to one channel; `active` false once they left. */
export interface Subscription {
  userId: number;
  streamId: number;
  active: boolean;
  color: string;
  isMuted: boolean;
  pinToTop: boolean;
  desktopNotifications: boolean | null;
  audibleNotifications: boolean | null;
  pushNotifications: boolean | null;
  emailNotifications: boolean | null;
  wildcardMentionsNotify: boolean | null;
}

/** A channel folder (organization administration). */
export interface ChannelFolder {
  id: number;
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  dateCreated: Date;
  creatorId: number | null;
  isArchived: boolean;
}

/** A custom profile field; `fieldData` is the JSON text the API shows. */
export interface CustomProfileField {
  id: number;
  realmId: number;
  name: string;
  hint: string;
  fieldType: number;
  fieldData: string;
  order: number;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

/** One user's value of one custom profile field. */
export interface ProfileFieldValue {
  fieldId: number;
  userId: number;
  value: string;
  renderedValue: string | null;
}

/** What an invitation of either kind grants, who made it and until when it works. */
export interface InviteGrant {
  realmId: number;
  key: string;
  referredBy: number;
  invitedAs: number;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  expiresAt: Date | null;
}

/** A reusable invitation link. */
export interface MultiuseInvite extends InviteGrant {
  id: number;
  createdAt: Date;
  revoked: boolean;
}

/** An invitation sent by email to one address (Zulip's PreregistrationUser). */
export interface EmailInvite extends InviteGrant {
  id: number;
  email: string;
  notifyReferrerOnJoin: boolean;
  invitedAt: Date;
}

/** Settings only bots have. */
export interface BotSettings {
  userId: number;
  defaultSendingStreamId: number | null;
  defaultEventsRegisterStreamId: number | null;
  defaultAllPublicStreams: boolean;
}

/** Zulip's outgoing webhook interfaces (`interface` of a bot's service). */
export const ServiceInterface = { GENERIC: 1, SLACK: 2 } as const;

/** The service of an outgoing webhook bot: where messages that trigger it are POSTed. */
export interface BotService {
  botId: number;
  name: string;
  baseUrl: string;
  interface: number;
  /** Sent with every request, so that the service can tell it comes from this server. */
  token: string;
}

/** A custom emoji; its image is `emojiKey(realm, id)` in the public storage area. */
export interface RealmEmoji {
  id: number;
  name: string;
  authorId: number | null;
  deactivated: boolean;
}

/** A realm linkifier: a Python-style pattern and an RFC 6570 URL template over its named groups. */
export interface Linkifier {
  id: number;
  pattern: string;
  urlTemplate: string;
}

/** A code playground: where code blocks of a language can be opened. */
export interface CodePlayground {
  id: number;
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}
