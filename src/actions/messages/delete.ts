// DELETE /messages/{message_id}. Allowed to members of the organization's
// can_delete_any_message_group, and to the sender (or a bot's owner) through the
// organization's can_delete_own_message_group within the realm's delete time limit.
// (Channel-level delete settings came after our feature level.)
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, User } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import type { EventQueue } from '../../events/queue.js';
import { deleteMessageEvents, type ServerEvent } from '../../events/catalog/index.js';
import { topicForQueue, wantsBulkDeletion } from '../../events/shape.js';
import { hasMessagePermission } from '../../permissions/messageAccess.js';
import { deleteMessages, firstMessageIdIn } from '../../db/messages.js';
import { saveStream } from '../../db/streams.js';
import { metadataAudience } from '../../permissions/channelAccess.js';
import { channelChanged } from '../channels/events.js';
import { readersOf } from '../../queries/readers.js';
import { limitSeconds, messageToModify, pastLimit, refreshTopic } from './modify.js';

function checkCanDelete(actor: RealmActor, user: User, m: MessageRecord): void {
  const stream = m.streamId !== null ? (actor.state.streams.get(m.streamId) ?? null) : null;
  if (hasMessagePermission(actor.state, user, stream, 'can_delete_any_message_group', null)) return;
  const sender = actor.user(m.senderId);
  const own = m.senderId === user.id || (sender?.isBot === true && sender.botOwnerId === user.id);
  const denied = () => badRequest("You don't have permission to delete this message");
  if (!own) throw denied();
  if (!hasMessagePermission(actor.state, user, stream, 'can_delete_own_message_group', null)) throw denied();
  if (pastLimit(m, limitSeconds(actor, 'message_content_delete_limit_seconds'))) {
    throw badRequest('The time limit for deleting this message has passed');
  }
}

/** The delete_message event(s) for one queue: one listing the ids, or one per message. */
function deleteEvents(messages: MessageRecord[]): (queue: EventQueue) => ServerEvent[] {
  return (queue) => {
    const first = messages[0]!;
    const where =
      first.streamId === null
        ? { message_type: 'private' as const }
        : { message_type: 'stream' as const, stream_id: first.streamId, topic: topicForQueue(queue, first.topic) };
    return deleteMessageEvents(messages.map((m) => m.id), where, wantsBulkDeletion(queue));
  };
}

/** Publishes delete events for messages (all of one conversation and topic) to some users. */
export function publishDeletion(actor: RealmActor, messages: MessageRecord[], userIds: Iterable<number>): void {
  if (messages.length === 0) return;
  const events = deleteEvents(messages);
  const ids = [...userIds];
  // One publish per event of the largest fan-out: a queue wanting one event per message
  // gets them in order.
  const perQueue = new Map<string, ServerEvent[]>();
  for (let i = 0; i < messages.length; i++) {
    actor.events.publish((queue) => {
      let list = perQueue.get(queue.id);
      if (!list) perQueue.set(queue.id, (list = events(queue)));
      return list[i] ?? null;
    }, ids);
  }
}

/**
 * After messages of a channel were deleted: when the channel's first message was among them,
 * its first_message_id moves to the oldest one left, and everyone who sees the channel is told
 * (Zulip's check_update_first_message_id).
 */
export async function refreshFirstMessageId(actor: RealmActor, streamId: number, deletedIds: number[]): Promise<void> {
  const stream = actor.state.streams.get(streamId);
  if (!stream || stream.firstMessageId === null || !deletedIds.includes(stream.firstMessageId)) return;
  const next: Stream = { ...stream, firstMessageId: await firstMessageIdIn(actor.sql, streamId) };
  await saveStream(actor.sql, next);
  actor.state.putStream(next);
  actor.events.publish(channelChanged(next, 'first_message_id', next.firstMessageId), metadataAudience(actor.state, next));
}

export function deleteMessage(actor: RealmActor, user: User, messageId: number): Promise<void> {
  return actor.exclusive(async () => {
    const { message } = await messageToModify(actor, user, messageId);
    checkCanDelete(actor, user, message);
    const readers = (await readersOf(actor, [message])).get(message.id) ?? new Map<number, number>();
    await deleteMessages(actor.sql, [message.id]);
    if (message.streamId !== null) await refreshTopic(actor, message.streamId, message.topic);
    publishDeletion(actor, [message], readers.keys());
    if (message.streamId !== null) await refreshFirstMessageId(actor, message.streamId, [message.id]);
  });
}
