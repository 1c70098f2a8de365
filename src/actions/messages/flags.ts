// Message flags a user sets: read/unread, starred, collapsed (POST /messages/flags and the
// mark-as-read shortcuts). Marking as read writes one row per message read: it is the user's
// action, not the send's.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import type { EventQueue } from '../../events/queue.js';
import { topicForQueue } from '../../events/shape.js';
import { topicFromClient } from '../../model/topics.js';
import { Flag, addFlagBit, flagBit, writeFlags } from '../../db/flags.js';
import { queryMessages, unreadIds } from '../../db/narrow.js';
import { canReadMessage, receivedMessage, type Reader } from '../../permissions/messageAccess.js';
import { loadReader } from '../../queries/readers.js';
import { fetchRange, viewerFlags, viewerScope, type RangeInput } from '../../queries/messages.js';
import { invalidChannelId } from '../channels/channels.js';
import { canAccessChannelContent } from '../../permissions/channelAccess.js';
import type { PendingQuery, Row } from 'postgres';
import { updateMessageFlagsEvent, type UnreadDetails } from '../../events/catalog/index.js';
import { notifiableTopic } from './notifications.js';

const EDITABLE = new Set(['read', 'starred', 'collapsed']);
const KNOWN = new Set([...EDITABLE, 'mentioned', 'wildcard_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'has_alert_word', 'historical']);

export function checkFlagRequest(op: string, flag: string): number {
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid message flag operation: '${op}'`);
  if (!KNOWN.has(flag)) throw badRequest(`Invalid flag: '${flag}'`);
  if (!EDITABLE.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  return flagBit(flag)!;
}

/** What a client needs to put a message back into its unread counts. */
function messageDetails(actor: RealmActor, user: User, m: MessageRecord, flags: number, queue: EventQueue): UnreadDetails {
  // As in Zulip's unread data: the channel's and the topic's muting both count, and a
  // channel-wide or topic-wide mention is a mention only where the conversation is not muted.
  const unmuted = m.streamId === null || notifiableTopic(actor, user, m.streamId, m.topic);
  const wildcard = (flags & (Flag.STREAM_WILDCARD_MENTIONED | Flag.TOPIC_WILDCARD_MENTIONED)) !== 0;
  const mentioned = (flags & Flag.MENTIONED) !== 0 || (wildcard && unmuted);
  const details: UnreadDetails =
    m.streamId === null
      ? { type: 'private', user_ids: (actor.state.messaging.conversations.get(m.recipientId)?.userIds ?? []).filter((id) => id !== user.id) }
      : { type: 'stream', stream_id: m.streamId, topic: topicForQueue(queue, m.topic), unmuted_stream_msg: unmuted };
  if (mentioned) details.mentioned = true;
  return details;
}

function publishFlagChange(actor: RealmActor, user: User, op: 'add' | 'remove', flag: string, changed: Array<{ m: MessageRecord; flags: number }>): void {
  const ids = changed.map((c) => c.m.id);
  actor.events.publish((queue) => {
    if (op !== 'remove' || flag !== 'read') return updateMessageFlagsEvent(op, flag, ids);
    const details: Record<string, UnreadDetails> = {};
    for (const c of changed) details[String(c.m.id)] = messageDetails(actor, user, c.m, c.flags, queue);
    return updateMessageFlagsEvent(op, flag, ids, details);
  }, [user.id]);
}

/** Applies a flag change to messages already checked readable; returns those that changed. */
async function applyFlag(actor: RealmActor, reader: Reader, rows: Array<{ message: MessageRecord; flags: number | undefined }>, op: 'add' | 'remove', bit: number) {
  const writes: Array<{ messageId: number; flags: number }> = [];
  const changed: Array<{ m: MessageRecord; flags: number }> = [];
  for (const { message: m, flags: row } of rows) {
    const received = receivedMessage(reader, m, row);
    const seen = viewerFlags(reader, m, row);
    if (op === 'add' ? (seen & bit) !== 0 : (seen & bit) === 0) continue;
    // What the user did not receive stays read: only its other flags can change.
    if (!received && bit === Flag.READ) continue;
    const base = row ?? (received ? 0 : Flag.READ | Flag.HISTORICAL);
    const next = op === 'add' ? base | bit : base & ~bit;
    writes.push({ messageId: m.id, flags: next });
    changed.push({ m, flags: seen });
  }
  await writeFlags(actor.sql, reader.user.id, writes);
  return changed;
}

/** POST /messages/flags. */
export function updateMessageFlags(actor: RealmActor, user: User, messageIds: number[], op: string, flag: string): Promise<{ messages: number[] }> {
  const bit = checkFlagRequest(op, flag);
  return actor.exclusive(async () => {
    const reader = await loadReader(actor, user);
    const ids = [...new Set(messageIds)];
    const sql = actor.sql;
    const rows = ids.length
      ? await queryMessages(sql, user.id, sql`m.realm_id = ${actor.realm.id} AND m.id = ANY(${ids}::int8[])`, { order: 'asc', limit: ids.length, search: null })
      : [];
    if (rows.length !== ids.length || rows.some((r) => !canReadMessage(actor.state, reader, r.message, r.flags))) {
      throw badRequest('Invalid message(s)');
    }
    const changed = await applyFlag(actor, reader, rows, op as 'add' | 'remove', bit);
    if (changed.length) publishFlagChange(actor, user, op as 'add' | 'remove', flag, changed);
    return { messages: changed.map((c) => c.m.id) };
  });
}

/** Marks the user's unread messages matching a condition as read; to be run in the mailbox. */
export async function markReadInMailbox(actor: RealmActor, user: User, condition: (sql: RealmActor['sql']) => PendingQuery<Row[]>): Promise<number[]> {
  const reader = await loadReader(actor, user);
  const ids = await unreadIds(actor.sql, actor.realm.id, viewerScope(reader), condition(actor.sql));
  if (ids.length === 0) return [];
  await addFlagBit(actor.sql, user.id, ids, Flag.READ);
  actor.events.publish(updateMessageFlagsEvent('add', 'read', ids), [user.id]);
  return ids;
}

function markRead(actor: RealmActor, user: User, condition: (sql: RealmActor['sql']) => PendingQuery<Row[]>): Promise<number[]> {
  return actor.exclusive(() => markReadInMailbox(actor, user, condition));
}

export function markAllAsRead(actor: RealmActor, user: User): Promise<number[]> {
  return markRead(actor, user, (sql) => sql`true`);
}

export function markChannelAsRead(actor: RealmActor, user: User, streamId: number): Promise<number[]> {
  const stream = actor.state.streams.get(streamId);
  if (!stream || !canAccessChannelContent(actor.state, user, stream)) throw invalidChannelId();
  return markRead(actor, user, (sql) => sql`m.stream_id = ${streamId}`);
}

export function markTopicAsRead(actor: RealmActor, user: User, streamId: number, topicName: string): Promise<number[]> {
  const stream = actor.state.streams.get(streamId);
  if (!stream || !canAccessChannelContent(actor.state, user, stream)) throw invalidChannelId();
  const topic = topicFromClient(topicName);
  if (!actor.state.messaging.topic(streamId, topic)) throw badRequest(`No such topic '${topicName}'`);
  return markRead(actor, user, (sql) => sql`m.stream_id = ${streamId} AND lower(m.topic) = lower(${topic})`);
}


/** POST /messages/flags/narrow: a flag change over the messages of a narrow around an anchor. */
export function updateFlagsForNarrow(actor: RealmActor, user: User, range: RangeInput, op: string, flag: string) {
  const bit = checkFlagRequest(op, flag);
  return actor.exclusive(async () => {
    const reader = await loadReader(actor, user);
    const r = await fetchRange(actor, reader, range);
    const changed = await applyFlag(actor, reader, r.rows, op as 'add' | 'remove', bit);
    if (changed.length) publishFlagChange(actor, user, op as 'add' | 'remove', flag, changed);
    return {
      processed_count: r.rows.length,
      updated_count: changed.length,
      first_processed_id: r.rows[0]?.message.id ?? null,
      last_processed_id: r.rows.at(-1)?.message.id ?? null,
      found_oldest: r.foundOldest,
      found_newest: r.foundNewest,
      ignored_because_not_subscribed_channels: [],
    };
  });
}
