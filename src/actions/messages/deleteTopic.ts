// POST /streams/{stream_id}/delete_topic (Zulip's delete_in_topic): deletes the messages of a
// topic that the caller can read, newest first, in batches that each commit on their own, so
// a topic too large for one request still loses part of its messages; `complete` says
// whether none are left. Once the time budget is spent the request answers `complete: false`
// (Zulip feature level 211) and the client repeats it for the rest. Each batch is a turn in the
// mailbox, so sends go on in between. Batch size and budget are DELETE_TOPIC_BATCH_SIZE and
// DELETE_TOPIC_TIME_BUDGET_MS.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import { mustBeAdmin } from '../../model/errors.js';
import { topicFromClient } from '../../model/topics.js';
import { hasMessagePermission, canReadMessage } from '../../permissions/messageAccess.js';
import { actingUser } from '../../permissions/roles.js';
import { deleteMessages } from '../../db/messages.js';
import { queryMessages, readableSql } from '../../db/narrow.js';
import { viewerScope } from '../../queries/messages.js';
import { loadReader, readersOf } from '../../queries/readers.js';
import { channelForContent } from '../channels/channels.js';
import { publishDeletion, refreshFirstMessageId } from './delete.js';
import { refreshTopic } from './modify.js';

/** One batch: deletes up to `batchSize` readable messages; says how many it found and deleted. */
function deleteBatch(actor: RealmActor, user: User, streamId: number, topic: string, batchSize: number): Promise<{ found: number; deleted: number }> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    const stream = channelForContent(actor.state, current, streamId, true);
    // The organization's can_delete_any_message_group (administrators by default), with the
    // error of Zulip's require_realm_admin.
    if (!hasMessagePermission(actor.state, current, stream, 'can_delete_any_message_group', null)) throw mustBeAdmin();
    const reader = await loadReader(actor, current);
    const sql = actor.sql;
    const rows = await queryMessages(
      sql,
      current.id,
      sql`m.realm_id = ${actor.realm.id} AND m.stream_id = ${stream.id} AND lower(m.topic) = lower(${topic}) AND ${readableSql(sql, viewerScope(reader))}`,
      { order: 'desc', limit: batchSize, search: null },
    );
    const messages: MessageRecord[] = rows.filter((r) => canReadMessage(actor.state, reader, r.message, r.flags)).map((r) => r.message);
    if (messages.length === 0) return { found: rows.length, deleted: 0 };
    const readers = await readersOf(actor, messages);
    await deleteMessages(sql, messages.map((m) => m.id));
    // Events name the topic as each message spells it, and go to those who could read them.
    const groups = new Map<string, { audience: number[]; messages: MessageRecord[] }>();
    for (const m of messages) {
      const audience = [...(readers.get(m.id)?.keys() ?? [])].sort((a, b) => a - b);
      const key = `${m.topic}\n${audience.join(',')}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { audience, messages: [] }));
      group.messages.push(m);
    }
    for (const spelling of new Set(messages.map((m) => m.topic))) await refreshTopic(actor, stream.id, spelling);
    for (const group of groups.values()) publishDeletion(actor, group.messages, group.audience);
    await refreshFirstMessageId(actor, stream.id, messages.map((m) => m.id));
    return { found: rows.length, deleted: messages.length };
  });
}

export async function deleteTopic(actor: RealmActor, user: User, streamId: number, topicName: string, now = () => performance.now()): Promise<{ complete: boolean }> {
  const topic = topicFromClient(topicName);
  const { DELETE_TOPIC_BATCH_SIZE: batchSize, DELETE_TOPIC_TIME_BUDGET_MS: budget } = actor.services.config;
  const deadline = now() + budget;
  for (;;) {
    // At least one batch per request, so that repeating it always gets further.
    const { found, deleted } = await deleteBatch(actor, user, streamId, topic, batchSize);
    if (found < batchSize || deleted === 0) return { complete: true };
    if (now() >= deadline) return { complete: false };
  }
}
