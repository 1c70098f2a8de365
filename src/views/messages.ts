// The message object of the API (GET /messages items, `message` events) as one viewer sees it.
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import type { EditHistoryEntry, MessageRecord } from '../model/messageState.js';
import type { Reaction } from '../db/reactions.js';
import { apiEmail, avatarUrl, INACCESSIBLE_USER_AVATAR, INACCESSIBLE_USER_NAME, placeholderEmail } from './users.js';
import { apiEmailIsReal } from '../permissions/email.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../model/limits.js';

export interface MessageViewOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  /** Without it, the empty topic is shown as the realm's display name for it. */
  allowEmptyTopicName: boolean;
}

export const displayTopic = (topic: string, allowEmpty: boolean) => (topic === '' && !allowEmpty ? EMPTY_TOPIC_DISPLAY_NAME : topic);

export function formatReactions(reactions: Reaction[]): Record<string, unknown>[] {
  return reactions.map((r) => ({
    emoji_name: r.emojiName,
    emoji_code: r.emojiCode,
    reaction_type: r.reactionType,
    user_id: r.userId,
  }));
}

/** Edit history as the realm's visibility policy allows: all of it, only moves, or none. */
function visibleEditHistory(actor: RealmActor, history: EditHistoryEntry[] | null): EditHistoryEntry[] | null {
  if (!history || history.length === 0) return null;
  const settings = actor.realm.settings;
  const policy = settings.message_edit_history_visibility_policy ?? (settings.allow_edit_history === false ? 'none' : 'all');
  if (policy === 'none') return null;
  if (policy === 'moves') {
    const moves = history
      .filter((e) => e.prev_topic !== undefined || e.prev_stream !== undefined)
      .map((e) => {
        const { prev_content: _c, prev_rendered_content: _r, ...rest } = e;
        return rest;
      });
    return moves.length ? moves : null;
  }
  return history;
}

/** Who took part in a direct conversation, as `display_recipient` lists them. */
function directRecipients(actor: RealmActor, recipientId: number): Record<string, unknown>[] {
  const conversation = actor.state.messaging.conversations.get(recipientId);
  const out: Record<string, unknown>[] = [];
  for (const id of conversation?.userIds ?? []) {
    const u = actor.user(id);
    if (!u) continue;
    out.push({ id: u.id, email: apiEmail(actor.services.config, actor.realm, u), full_name: u.fullName, is_mirror_dummy: false });
  }
  return out;
}

/**
 * The message without per-user parts (flags); the same for every viewer with the same options.
 * `topicLinks` are the realm's linkifiers applied to the topic (actions/topicLinks.ts).
 */
export function formatMessage(
  actor: RealmActor,
  viewer: User | null,
  m: MessageRecord,
  reactions: Reaction[],
  opts: MessageViewOptions,
  topicLinks: Array<{ text: string; url: string }>,
): Record<string, unknown> {
  const sender = actor.user(m.senderId);
  const stream = m.streamId !== null ? actor.state.streams.get(m.streamId) : undefined;
  const gravatarHidden = !!sender && opts.clientGravatar && sender.avatarSource === 'G' && apiEmailIsReal(sender);
  const topic = m.streamId === null ? '' : displayTopic(m.topic, opts.allowEmptyTopicName);
  const out: Record<string, unknown> = {
    id: m.id,
    sender_id: m.senderId,
    sender_email: sender ? apiEmail(actor.services.config, actor.realm, sender) : '',
    sender_full_name: sender?.fullName ?? '',
    sender_realm_str: actor.realm.stringId,
    avatar_url: sender && !gravatarHidden ? avatarUrl(sender) : null,
    client: m.client,
    content: opts.applyMarkdown ? m.renderedContent : m.content,
    content_type: opts.applyMarkdown ? 'text/html' : 'text/x-markdown',
    display_recipient: stream ? stream.name : directRecipients(actor, m.recipientId),
    recipient_id: m.recipientId,
    type: m.streamId === null ? 'private' : 'stream',
    subject: topic,
    topic_links: m.streamId === null ? [] : topicLinks,
    timestamp: Math.floor(m.dateSent.getTime() / 1000),
    is_me_message: m.isMeMessage,
    reactions: formatReactions(reactions),
    submessages: [],
  };
  if (m.streamId !== null) out.stream_id = m.streamId;
  if (m.lastEditTime) out.last_edit_timestamp = Math.floor(m.lastEditTime.getTime() / 1000);
  if (m.lastMovedTime) out.last_moved_timestamp = Math.floor(m.lastMovedTime.getTime() / 1000);
  const history = visibleEditHistory(actor, m.editHistory);
  if (history) out.edit_history = history;
  return out;
}

/**
 * A message as a viewer who may not see its sender gets it (Zulip's finalize_payload with
 * can_access_sender false): the sender's name, address and avatar are placeholders.
 */
export function withInaccessibleSender(actor: RealmActor, message: Record<string, unknown>): Record<string, unknown> {
  return {
    ...message,
    sender_email: placeholderEmail(actor.services.config, actor.realm, message.sender_id as number),
    sender_full_name: INACCESSIBLE_USER_NAME,
    avatar_url: INACCESSIBLE_USER_AVATAR,
  };
}
