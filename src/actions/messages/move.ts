// Moving messages to another topic and/or channel (PATCH /messages/{id} with topic or
// stream_id). The destination is re-checked inside the caller's realm (CVE-2021-30487); after
// a move between channels, users without access to the destination lose the messages, and
// their flags rows with them, so nothing stays readable through old rows (CVE-2024-27286).
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import { Role, type Stream, type User } from '../../model/types.js';
import type { EditHistoryEntry, MessageRecord } from '../../model/messageState.js';
import { canAccessChannelContent } from '../../permissions/channelAccess.js';
import { checkCanSendToChannel, hasMessagePermission, type Reader } from '../../permissions/messageAccess.js';
import { Flag, deleteFlagRows, writeFlagRows } from '../../db/flags.js';
import { loadMessages, moveMessages } from '../../db/messages.js';
import { queryMessages, readableSql } from '../../db/narrow.js';
import { RESOLVED_TOPIC_PREFIX } from '../../db/narrow.js';
import { invalidChannelId } from '../channels/channels.js';
import { viewerScope } from '../../queries/messages.js';
import { normalizeTopic } from './input.js';
import { effectiveTopicsPolicy } from './recipients.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/limits.js';
import { readersOf } from '../../queries/readers.js';
import { limitSeconds, pastLimit, refreshTopic } from './modify.js';

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export interface MovePlan {
  messages: MessageRecord[];
  from: Stream;
  to: Stream;
  fromTopic: string;
  toTopic: string;
  topicChanged: boolean;
  streamChanged: boolean;
  /** Only a resolved-topic mark was added or removed: not counted as a move. */
  resolveOnly: boolean;
}

const MAX_MESSAGES_MOVED = 100_000;

function isResolveToggle(a: string, b: string): boolean {
  return a === RESOLVED_TOPIC_PREFIX + b || b === RESOLVED_TOPIC_PREFIX + a;
}

function checkTopicPolicy(actor: RealmActor, stream: Stream, topic: string): void {
  const policy = effectiveTopicsPolicy(actor, stream);
  if (policy === 'disable_empty_topic' && topic === '') {
    throw badRequest(`Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} topic is not allowed in this channel.`);
  }
  if (policy === 'empty_topic_only' && topic !== '') throw badRequest(`Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`);
}

/** Checks a move and picks the messages it takes along; null when nothing moves. */
export async function planMove(
  actor: RealmActor,
  user: User,
  reader: Reader,
  m: MessageRecord,
  input: { topic?: string; streamId?: number; propagateMode: PropagateMode },
  editsContent: boolean,
): Promise<MovePlan | null> {
  const { state } = actor;
  if (input.topic === undefined && input.streamId === undefined) return null;
  if (m.streamId === null) {
    throw badRequest(input.streamId !== undefined ? 'Direct messages cannot be moved to channels.' : 'Direct messages cannot have topics.');
  }
  const from = state.streams.get(m.streamId)!;
  const toTopic = input.topic !== undefined ? normalizeTopic(input.topic) : m.topic;
  let to = from;
  if (input.streamId !== undefined && input.streamId !== from.id) {
    if (editsContent) throw badRequest('Cannot change message content while changing channel');
    const dest = state.streams.get(input.streamId);
    if (!dest || dest.isArchived || !canAccessChannelContent(state, user, dest)) throw invalidChannelId();
    to = dest;
  }
  const streamChanged = to.id !== from.id;
  const topicChanged = toTopic !== m.topic;
  if (!streamChanged && !topicChanged) return null;
  const staff = user.role <= Role.MODERATOR;
  const resolveOnly = !streamChanged && isResolveToggle(m.topic, toTopic);
  if (resolveOnly) {
    if (!hasMessagePermission(state, user, from, 'can_resolve_topics_group', 'can_resolve_topics_group')) {
      throw badRequest("You don't have permission to resolve topics.");
    }
  } else if (topicChanged) {
    if (!hasMessagePermission(state, user, from, 'can_move_messages_between_topics_group', 'can_move_messages_within_channel_group')) {
      throw badRequest("You don't have permission to edit this message");
    }
    if (!staff && pastLimit(m, limitSeconds(actor, 'move_messages_within_stream_limit_seconds'))) {
      throw badRequest("The time limit for editing this message's topic has passed");
    }
  }
  if (streamChanged) {
    if (!hasMessagePermission(state, user, from, 'can_move_messages_between_channels_group', 'can_move_messages_out_of_channel_group')) {
      throw badRequest("You don't have permission to move this message");
    }
    if (!staff && pastLimit(m, limitSeconds(actor, 'move_messages_between_streams_limit_seconds'))) {
      throw badRequest("You don't have permission to move this message due to the time limit");
    }
    checkCanSendToChannel(state, user, to);
  }
  checkTopicPolicy(actor, to, toTopic);

  let messages = [m];
  if (input.propagateMode !== 'change_one') {
    const sql = actor.sql;
    const fromId = input.propagateMode === 'change_later' ? m.id : 0;
    const rows = await queryMessages(
      sql,
      user.id,
      sql`m.realm_id = ${actor.realm.id} AND m.stream_id = ${from.id} AND lower(m.topic) = lower(${m.topic})
          AND m.id >= ${fromId} AND ${readableSql(sql, viewerScope(reader))}`,
      { order: 'asc', limit: MAX_MESSAGES_MOVED, search: null },
    );
    messages = rows.map((r) => r.message);
    if (!messages.some((x) => x.id === m.id)) messages.push(m);
  }
  return { messages, from, to, fromTopic: m.topic, toTopic, topicChanged, streamChanged, resolveOnly };
}

export interface MoveOutcome {
  /** The moved messages as they are now. */
  moved: MessageRecord[];
  /** Readers after the move: message id → user id → flags. */
  readers: Map<number, Map<number, number>>;
  /** Users who could read the messages before and cannot now. */
  lostAccess: Set<number>;
}

/** Writes a planned move, fixes who received the messages, and refreshes the topic index. */
export async function applyMove(actor: RealmActor, user: User, plan: MovePlan, now: Date, conversationId: number): Promise<MoveOutcome> {
  const { state } = actor;
  const ids = plan.messages.map((x) => x.id);
  const before = await readersOf(actor, plan.messages);
  const entry: EditHistoryEntry = { user_id: user.id, timestamp: Math.floor(now.getTime() / 1000) };
  if (plan.topicChanged) Object.assign(entry, { prev_topic: plan.fromTopic, topic: plan.toTopic });
  if (plan.streamChanged) Object.assign(entry, { prev_stream: plan.from.id, stream: plan.to.id });
  const sql = actor.sql;
  await sql.begin(async (tx) => {
    await moveMessages(tx, ids, {
      streamId: plan.to.id,
      recipientId: conversationId,
      topic: plan.toTopic,
      movedAt: plan.resolveOnly ? null : now,
      entry,
      recipientsListed: plan.streamChanged,
    });
    if (!plan.streamChanged) return;
    // The destination's subscription history says nothing about these messages: list who
    // received them, keeping those who may read the destination and dropping the others.
    const keep: Array<{ userId: number; messageId: number; flags: number }> = [];
    const drop: Array<{ userId: number; messageId: number }> = [];
    for (const [messageId, readers] of before) {
      for (const [userId, bits] of readers) {
        const u = state.users.get(userId);
        if (!u) continue;
        if (!canAccessChannelContent(state, u, plan.to)) drop.push({ userId, messageId });
        else if ((bits & Flag.HISTORICAL) === 0) keep.push({ userId, messageId, flags: bits & ~Flag.STREAM_WILDCARD_MENTIONED });
      }
      // Subscribers of a destination with protected history receive what was moved in.
      if (!plan.to.historyPublicToSubscribers) {
        for (const userId of state.subscriberIds(plan.to.id)) {
          if (!readers.has(userId)) keep.push({ userId, messageId, flags: Flag.READ });
        }
      }
    }
    await deleteFlagRows(tx, drop);
    await writeFlagRows(tx, keep);
  });
  await refreshTopic(actor, plan.from.id, plan.fromTopic);
  await refreshTopic(actor, plan.to.id, plan.toTopic);
  const moved = await loadMessages(actor.sql, actor.realm.id, ids);
  const readers = await readersOf(actor, moved);
  const lostAccess = new Set<number>();
  for (const r of before.values()) for (const userId of r.keys()) lostAccess.add(userId);
  for (const r of readers.values()) for (const userId of r.keys()) lostAccess.delete(userId);
  return { moved, readers, lostAccess };
}
