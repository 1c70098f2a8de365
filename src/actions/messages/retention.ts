// Message retention: messages older than their channel's retention period (or the
// organization's, for channels that follow it and for direct messages) are deleted, and the
// users who could read them get `delete_message` events, as for a deletion by hand. Runs in
// the realm's actor (its only writer), in batches, so sends go on between batches.
import type { RealmActor } from '../../realm/actor.js';
import type { Stream } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import { deleteMessages } from '../../db/messages.js';
import { expiredChannelMessages, expiredDirectMessages, type ChannelCutoff } from '../../db/retention.js';
import { readersOf } from '../../queries/readers.js';
import { publishDeletion, refreshFirstMessageId } from './delete.js';
import { refreshTopic } from './modify.js';
import { realmProperty } from '../../permissions/realmSettings.js';

const DAY_MS = 24 * 3600 * 1000;
/** Messages deleted per turn in the mailbox. */
export const RETENTION_BATCH = 500;

/**
 * Days a channel's messages are kept (the organization's period for direct messages, and for
 * channels whose setting is null); null when kept forever (-1, "unlimited").
 */
export function retentionDays(actor: RealmActor, stream: Stream | null): number | null {
  const realmDays = realmProperty(actor.state, 'message_retention_days');
  const days = stream && stream.messageRetentionDays !== null ? stream.messageRetentionDays : realmDays;
  return typeof days === 'number' && days > 0 ? days : null;
}

/** Deletes every expired message of the realm; returns how many. */
export async function deleteExpiredMessages(actor: RealmActor, now = Date.now()): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await actor.exclusive(() => deleteExpiredBatch(actor, now));
    total += n;
    if (n < RETENTION_BATCH) return total;
  }
}

async function expiredBatch(actor: RealmActor, now: number): Promise<MessageRecord[]> {
  const cutoffs: ChannelCutoff[] = [];
  for (const stream of actor.state.streams.values()) {
    const days = retentionDays(actor, stream);
    if (days !== null) cutoffs.push({ streamId: stream.id, cutoff: new Date(now - days * DAY_MS) });
  }
  const realmId = actor.realm.id;
  const out = await expiredChannelMessages(actor.sql, realmId, cutoffs, RETENTION_BATCH);
  const directDays = retentionDays(actor, null);
  if (directDays !== null && out.length < RETENTION_BATCH) {
    out.push(...(await expiredDirectMessages(actor.sql, realmId, new Date(now - directDays * DAY_MS), RETENTION_BATCH - out.length)));
  }
  return out;
}

async function deleteExpiredBatch(actor: RealmActor, now: number): Promise<number> {
  if (actor.realm.deactivated) return 0;
  const messages = await expiredBatch(actor, now);
  if (messages.length === 0) return 0;
  // Who could read them is known only while they exist.
  const readers = await readersOf(actor, messages);
  await deleteMessages(actor.sql, messages.map((m) => m.id));
  const conversations = groupByConversation(messages);
  for (const group of conversations) {
    const first = group[0]!;
    if (first.streamId !== null) await refreshTopic(actor, first.streamId, first.topic);
  }
  for (const group of conversations) publishToReaders(actor, group, readers);
  const byChannel = new Map<number, number[]>();
  for (const m of messages) if (m.streamId !== null) byChannel.set(m.streamId, [...(byChannel.get(m.streamId) ?? []), m.id]);
  for (const [streamId, ids] of byChannel) await refreshFirstMessageId(actor, streamId, ids);
  return messages.length;
}

/** Messages of one channel topic (exact spelling, as the events name it) or one direct conversation. */
function groupByConversation(messages: MessageRecord[]): MessageRecord[][] {
  const groups = new Map<string, MessageRecord[]>();
  for (const m of messages) {
    const key = m.streamId === null ? `d${m.recipientId}` : `s${m.streamId}\n${m.topic}`;
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(m);
  }
  return [...groups.values()];
}

/** Each user hears of the messages they could read: users with the same set share one publish. */
function publishToReaders(actor: RealmActor, group: MessageRecord[], readers: Map<number, Map<number, number>>): void {
  const perUser = new Map<number, number[]>();
  group.forEach((m, i) => {
    for (const userId of readers.get(m.id)?.keys() ?? []) {
      let list = perUser.get(userId);
      if (!list) perUser.set(userId, (list = []));
      list.push(i);
    }
  });
  const buckets = new Map<string, { messages: MessageRecord[]; userIds: number[] }>();
  for (const [userId, indexes] of perUser) {
    const key = indexes.join(',');
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = { messages: indexes.map((i) => group[i]!), userIds: [] }));
    bucket.userIds.push(userId);
  }
  for (const b of buckets.values()) publishDeletion(actor, b.messages, b.userIds);
}
