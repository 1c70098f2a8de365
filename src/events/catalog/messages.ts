// Events about messages: new messages, edits and moves, deletions, flags, reactions, typing,
// and users' topic visibility policies.
import { z } from 'zod';
import { ids, int, messageObject, topicLink, type ApiObject } from './objects.js';

const flags = z.array(z.string());

export const messageEventSchema = z.strictObject({
  type: z.literal('message'),
  message: messageObject,
  flags,
  local_message_id: z.string().optional(),
});
export type MessageEvent = z.infer<typeof messageEventSchema>;

export const messageEvent = (message: ApiObject, flagNames: string[], localMessageId?: string): MessageEvent =>
  localMessageId === undefined ? { type: 'message', message, flags: flagNames } : { type: 'message', message, flags: flagNames, local_message_id: localMessageId };

export const updateMessageEventSchema = z.strictObject({
  type: z.literal('update_message'),
  user_id: int().nullable(),
  edit_timestamp: int(),
  message_id: int(),
  message_ids: ids(),
  rendering_only: z.boolean(),
  flags,
  stream_name: z.string().optional(),
  stream_id: int().optional(),
  // A content edit.
  orig_content: z.string().optional(),
  orig_rendered_content: z.string().optional(),
  content: z.string().optional(),
  rendered_content: z.string().optional(),
  is_me_message: z.boolean().optional(),
  prev_rendered_content_version: int().optional(),
  // A move.
  propagate_mode: z.enum(['change_one', 'change_later', 'change_all']).optional(),
  new_stream_id: int().optional(),
  orig_subject: z.string().optional(),
  subject: z.string().optional(),
  topic_links: z.array(topicLink).optional(),
});
export type UpdateMessageEvent = z.infer<typeof updateMessageEventSchema>;

export const updateMessageEvent = (fields: Omit<UpdateMessageEvent, 'type'>): UpdateMessageEvent => ({ type: 'update_message', ...fields });

/** Where deleted messages were: a direct conversation, or a channel topic. */
type DeletedIn = { message_type: 'private' } | { message_type: 'stream'; stream_id: number; topic: string };

export const deleteMessageEventSchema = z.union([
  z.strictObject({ type: z.literal('delete_message'), message_ids: ids(), message_type: z.literal('private') }),
  z.strictObject({ type: z.literal('delete_message'), message_ids: ids(), message_type: z.literal('stream'), stream_id: int(), topic: z.string() }),
  z.strictObject({ type: z.literal('delete_message'), message_id: int(), message_type: z.literal('private') }),
  z.strictObject({ type: z.literal('delete_message'), message_id: int(), message_type: z.literal('stream'), stream_id: int(), topic: z.string() }),
]);
export type DeleteMessageEvent = z.infer<typeof deleteMessageEventSchema>;

/** With `bulk_message_deletion`, one event names every message; without it, one event each. */
export const deleteMessageEvents = (messageIds: number[], where: DeletedIn, bulk: boolean): DeleteMessageEvent[] =>
  bulk ? [{ type: 'delete_message', message_ids: messageIds, ...where }] : messageIds.map((id) => ({ type: 'delete_message', message_id: id, ...where }));

const unreadDetails = z.union([
  z.strictObject({ type: z.literal('private'), user_ids: ids(), mentioned: z.literal(true).optional() }),
  z.strictObject({ type: z.literal('stream'), stream_id: int(), topic: z.string(), unmuted_stream_msg: z.boolean(), mentioned: z.literal(true).optional() }),
]);
export type UnreadDetails = z.infer<typeof unreadDetails>;

export const updateMessageFlagsEventSchema = z.strictObject({
  type: z.literal('update_message_flags'),
  op: z.enum(['add', 'remove']),
  operation: z.enum(['add', 'remove']),
  flag: z.string(),
  messages: ids(),
  all: z.boolean(),
  message_details: z.record(z.string(), unreadDetails).optional(),
});
export type UpdateMessageFlagsEvent = z.infer<typeof updateMessageFlagsEventSchema>;

/** A flag set or cleared on messages; clearing `read` tells the client where they were. */
export function updateMessageFlagsEvent(op: 'add' | 'remove', flag: string, messageIds: number[], details?: Record<string, UnreadDetails>): UpdateMessageFlagsEvent {
  const event: UpdateMessageFlagsEvent = { type: 'update_message_flags', op, operation: op, flag, messages: messageIds, all: false };
  if (details) event.message_details = details;
  return event;
}

export const reactionEventSchema = z.strictObject({
  type: z.literal('reaction'),
  op: z.enum(['add', 'remove']),
  message_id: int(),
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'zulip_extra_emoji']),
  user_id: int(),
  // Deprecated but sent in events from feature level 339 until 484 (clients still read it).
  user: z.strictObject({ user_id: int(), email: z.string(), full_name: z.string() }),
});
export type ReactionEvent = z.infer<typeof reactionEventSchema>;

export const reactionEvent = (op: 'add' | 'remove', fields: Omit<ReactionEvent, 'type' | 'op'>): ReactionEvent => ({ type: 'reaction', op, ...fields });

const typist = z.strictObject({ user_id: int(), email: z.string() });
type Typist = z.infer<typeof typist>;

export const typingEventSchema = z.union([
  z.strictObject({ type: z.literal('typing'), op: z.enum(['start', 'stop']), message_type: z.literal('direct'), sender: typist, recipients: z.array(typist) }),
  z.strictObject({ type: z.literal('typing'), op: z.enum(['start', 'stop']), message_type: z.literal('stream'), sender: typist, stream_id: int(), topic: z.string() }),
]);
export type TypingEvent = z.infer<typeof typingEventSchema>;

export const directTypingEvent = (op: 'start' | 'stop', sender: Typist, recipients: Typist[]): TypingEvent => ({
  type: 'typing', op, message_type: 'direct', sender, recipients,
});

export const channelTypingEvent = (op: 'start' | 'stop', sender: Typist, streamId: number, topic: string): TypingEvent => ({
  type: 'typing', op, message_type: 'stream', sender, stream_id: streamId, topic,
});

export const userTopicEventSchema = z.strictObject({
  type: z.literal('user_topic'),
  stream_id: int(),
  topic_name: z.string(),
  last_updated: int(),
  visibility_policy: int(),
});
export type UserTopicEvent = z.infer<typeof userTopicEventSchema>;

export const userTopicEvent = (fields: Omit<UserTopicEvent, 'type'>): UserTopicEvent => ({ type: 'user_topic', ...fields });

/** Deprecated, still sent at 406 before each user_topic event a user's own request causes. */
export const mutedTopicsEventSchema = z.strictObject({
  type: z.literal('muted_topics'),
  muted_topics: z.array(z.tuple([z.string(), z.string(), int()])),
});
export type MutedTopicsEvent = z.infer<typeof mutedTopicsEventSchema>;

export const mutedTopicsEvent = (mutedTopics: Array<[string, string, number]>): MutedTopicsEvent => ({ type: 'muted_topics', muted_topics: mutedTopics });

export const messageEventSchemas = [
  messageEventSchema, updateMessageEventSchema, deleteMessageEventSchema, updateMessageFlagsEventSchema,
  reactionEventSchema, typingEventSchema, userTopicEventSchema, mutedTopicsEventSchema,
] as const;
