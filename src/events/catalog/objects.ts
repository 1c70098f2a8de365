// The API objects events carry (a message, a user, a channel, a subscription, a group …), as
// zod schemas. At run time they are strict (the tests validate every event they receive, so a
// field we should not send fails there); at compile time they are plain records, because the
// views in src/views build them.
import { z } from 'zod';
import { CHANNEL_SETTING_NAMES } from '../../permissions/channelSettings.js';
import { USER_GROUP_SETTINGS } from '../../permissions/groupPermissions.js';

/** A nested API object: built by a view, checked field by field by the tests. */
export type ApiObject = Record<string, unknown>;

export function apiObject(shape: z.ZodRawShape): z.ZodType<ApiObject> {
  return z.strictObject(shape) as unknown as z.ZodType<ApiObject>;
}

export const int = () => z.number().int();
export const ids = () => z.array(z.number().int());
const nullable = <T extends z.ZodType>(t: T) => t.nullable();

/** A group-setting value: a group id, or an anonymous group of members and subgroups. */
export const groupSettingValue = z.union([int(), z.strictObject({ direct_members: ids(), direct_subgroups: ids() })]);

const settingsShape = (names: string[]) => Object.fromEntries(names.map((n) => [n, groupSettingValue]));

export const topicLink = z.strictObject({ text: z.string(), url: z.string() });

export const reactionObject = apiObject({
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji']),
  user_id: int(),
});

const editHistoryEntry = apiObject({
  timestamp: int(),
  user_id: nullable(int()),
  prev_content: z.string().optional(),
  prev_rendered_content: z.string().optional(),
  prev_rendered_content_version: nullable(int()).optional(),
  prev_topic: z.string().optional(),
  topic: z.string().optional(),
  prev_stream: int().optional(),
  stream: int().optional(),
});

const directRecipient = z.strictObject({ id: int(), email: z.string(), full_name: z.string(), is_mirror_dummy: z.boolean() });

export const messageObject = apiObject({
  id: int(),
  sender_id: int(),
  sender_email: z.string(),
  sender_full_name: z.string(),
  sender_realm_str: z.string(),
  avatar_url: nullable(z.string()),
  client: z.string(),
  content: z.string(),
  content_type: z.enum(['text/html', 'text/x-markdown']),
  display_recipient: z.union([z.string(), z.array(directRecipient)]),
  recipient_id: int(),
  type: z.enum(['stream', 'private']),
  subject: z.string(),
  topic_links: z.array(topicLink),
  timestamp: int(),
  is_me_message: z.boolean(),
  reactions: z.array(reactionObject),
  submessages: z.array(z.unknown()),
  stream_id: int().optional(),
  last_edit_timestamp: int().optional(),
  last_moved_timestamp: int().optional(),
  edit_history: z.array(editHistoryEntry).optional(),
});

const profileDataValue = z.strictObject({ value: z.string(), rendered_value: z.string().optional() });

/** The fields of a user object (GET /users, realm_user events, register's lists). */
export const userShape = {
  email: z.string(),
  user_id: int(),
  avatar_version: int(),
  is_admin: z.boolean(),
  is_owner: z.boolean(),
  is_guest: z.boolean(),
  is_bot: z.boolean(),
  role: int(),
  full_name: z.string(),
  timezone: z.string(),
  date_joined: z.string(),
  delivery_email: nullable(z.string()),
  avatar_url: nullable(z.string()).optional(),
  bot_type: nullable(int()).optional(),
  is_active: z.boolean().optional(),
  bot_owner_id: nullable(int()).optional(),
  profile_data: z.record(z.string(), profileDataValue).optional(),
};
export const userObject = apiObject(userShape);

const streamShape = {
  stream_id: int(),
  name: z.string(),
  is_archived: z.boolean(),
  description: z.string(),
  rendered_description: z.string(),
  date_created: int(),
  creator_id: nullable(int()),
  invite_only: z.boolean(),
  is_web_public: z.boolean(),
  stream_post_policy: int(),
  is_announcement_only: z.boolean(),
  message_retention_days: nullable(int()),
  history_public_to_subscribers: z.boolean(),
  topics_policy: z.enum(['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only']),
  first_message_id: nullable(int()),
  folder_id: nullable(int()),
  is_recently_active: z.boolean(),
  subscriber_count: int(),
  stream_weekly_traffic: nullable(int()),
  ...settingsShape(CHANNEL_SETTING_NAMES),
};

export const streamObject = apiObject(streamShape);

export const subscriptionObject = apiObject({
  ...streamShape,
  color: z.string(),
  is_muted: z.boolean(),
  in_home_view: z.boolean(),
  pin_to_top: z.boolean(),
  desktop_notifications: nullable(z.boolean()),
  audible_notifications: nullable(z.boolean()),
  push_notifications: nullable(z.boolean()),
  email_notifications: nullable(z.boolean()),
  wildcard_mentions_notify: nullable(z.boolean()),
  subscribers: ids().optional(),
  partial_subscribers: ids().optional(),
});

export const groupObject = apiObject({
  id: int(),
  name: z.string(),
  description: z.string(),
  date_created: nullable(int()),
  creator_id: nullable(int()),
  members: ids(),
  direct_subgroup_ids: ids(),
  is_system_group: z.boolean(),
  deactivated: z.boolean(),
  ...settingsShape(Object.keys(USER_GROUP_SETTINGS)),
});

export const botObject = apiObject({
  email: z.string(),
  user_id: int(),
  full_name: z.string(),
  bot_type: nullable(int()),
  role: int(),
  is_active: z.boolean(),
  api_key: z.string(),
  default_sending_stream: nullable(z.string()),
  default_events_register_stream: nullable(z.string()),
  default_all_public_streams: z.boolean(),
  avatar_url: z.string(),
  owner_id: nullable(int()),
  services: z.array(z.strictObject({ base_url: z.string(), interface: int(), token: z.string() })),
});

export const profileFieldObject = apiObject({
  id: int(),
  name: z.string(),
  type: int(),
  hint: z.string(),
  field_data: z.string(),
  order: int(),
  required: z.boolean(),
  editable_by_user: z.boolean(),
  display_in_profile_summary: z.literal(true).optional(),
});

export const folderObject = apiObject({
  id: int(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  date_created: int(),
  creator_id: nullable(int()),
  is_archived: z.boolean(),
});

export const linkifierObject = apiObject({ id: int(), pattern: z.string(), url_template: z.string() });

export const playgroundObject = apiObject({ id: int(), name: z.string(), pygments_language: z.string(), url_template: z.string() });
