// Events about a user's own choices and doings that are not settings: the users they muted,
// their status, and typing while editing a message.
import { z } from 'zod';
import { ids, int } from './objects.js';

const mutedUserEntry = z.strictObject({ id: int(), timestamp: int() });
export type MutedUserEntry = z.infer<typeof mutedUserEntry>;

/** The whole list of users the receiving user muted, oldest first (sent to that user only). */
export const mutedUsersEventSchema = z.strictObject({ type: z.literal('muted_users'), muted_users: z.array(mutedUserEntry) });
export type MutedUsersEvent = z.infer<typeof mutedUsersEventSchema>;

export const mutedUsersEvent = (list: MutedUserEntry[]): MutedUsersEvent => ({ type: 'muted_users', muted_users: list });

/** What changed of a user's status: only the parts the request set. */
const statusChange = z.strictObject({
  away: z.boolean().optional(),
  status_text: z.string().optional(),
  emoji_name: z.string().optional(),
  emoji_code: z.string().optional(),
  reaction_type: z.string().optional(),
});
export type StatusChange = z.infer<typeof statusChange>;

export const userStatusEventSchema = statusChange.extend({ type: z.literal('user_status'), user_id: int() });
export type UserStatusEvent = z.infer<typeof userStatusEventSchema>;

export const userStatusEvent = (userId: number, change: StatusChange): UserStatusEvent => ({ type: 'user_status', user_id: userId, ...change });

export const typingEditMessageEventSchema = z.strictObject({
  type: z.literal('typing_edit_message'),
  op: z.enum(['start', 'stop']),
  sender_id: int(),
  message_id: int(),
  recipient: z.union([
    z.strictObject({ type: z.literal('channel'), channel_id: int(), topic: z.string() }),
    z.strictObject({ type: z.literal('direct'), user_ids: ids() }),
  ]),
});
export type TypingEditMessageEvent = z.infer<typeof typingEditMessageEventSchema>;

export const channelEditTypingEvent = (op: 'start' | 'stop', senderId: number, messageId: number, channelId: number, topic: string): TypingEditMessageEvent => ({
  type: 'typing_edit_message', op, sender_id: senderId, message_id: messageId, recipient: { type: 'channel', channel_id: channelId, topic },
});

export const directEditTypingEvent = (op: 'start' | 'stop', senderId: number, messageId: number, userIds: number[]): TypingEditMessageEvent => ({
  type: 'typing_edit_message', op, sender_id: senderId, message_id: messageId, recipient: { type: 'direct', user_ids: userIds },
});

export const personalEventSchemas = [mutedUsersEventSchema, userStatusEventSchema, typingEditMessageEventSchema] as const;
