// Who can read given messages: the audience of update_message, reaction and delete events.
// An edit of a message in a private channel with protected history goes only to those who
// received it, not to every current subscriber (CVE-2022-31017).
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import type { MessageRecord } from '../model/messageState.js';
import { Flag, loadMessageFlagRows } from '../db/flags.js';
import { loadChannelSubscriptionLog, loadUserSubscriptionLog } from '../db/messageHistory.js';
import { buildReader, coveredBy, hasFullHistoryAccess, rangesFromLog, type IdRange, type Reader } from '../permissions/messageAccess.js';

/** The reader of one user: their subscription periods, conversations and channel access. */
export async function loadReader(actor: RealmActor, user: User): Promise<Reader> {
  return buildReader(actor.state, user, await loadUserSubscriptionLog(actor.sql, user.id));
}

/** Every user's subscription periods on one channel. */
async function channelRanges(actor: RealmActor, streamId: number): Promise<Map<number, IdRange[]>> {
  const logs = new Map<number, Array<{ event: string; messageIdAt: number }>>();
  for (const r of await loadChannelSubscriptionLog(actor.sql, streamId)) {
    let list = logs.get(r.userId);
    if (!list) logs.set(r.userId, (list = []));
    list.push(r);
  }
  for (const userId of actor.state.subsByStream.get(streamId)?.keys() ?? []) if (!logs.has(userId)) logs.set(userId, []);
  const out = new Map<number, IdRange[]>();
  for (const [userId, log] of logs) {
    const ranges = rangesFromLog(log, actor.state.isSubscribed(userId, streamId));
    if (ranges.length) out.set(userId, ranges);
  }
  return out;
}

/**
 * Message id → (id of each active user who can read it now → their flags as they see them:
 * their row, the channel-wide mention, or read+historical for what they did not receive).
 */
export async function readersOf(actor: RealmActor, messages: MessageRecord[]): Promise<Map<number, Map<number, number>>> {
  const { state } = actor;
  const out = new Map<number, Map<number, number>>();
  const flagRows = new Map<number, Map<number, number>>();
  for (const r of await loadMessageFlagRows(actor.sql, messages.map((m) => m.id))) {
    let byUser = flagRows.get(r.messageId);
    if (!byUser) flagRows.set(r.messageId, (byUser = new Map()));
    byUser.set(r.userId, r.flags);
  }
  const active = (id: number) => state.users.get(id)?.isActive === true;
  const rangesByStream = new Map<number, Map<number, IdRange[]>>();
  for (const m of messages) {
    const readers = new Map<number, number>();
    out.set(m.id, readers);
    const rows = flagRows.get(m.id) ?? new Map<number, number>();
    const received = (userId: number, bits: number) => {
      if (!active(userId)) return;
      const wildcard = m.mentionsStreamWildcard && m.streamId !== null ? Flag.STREAM_WILDCARD_MENTIONED : 0;
      readers.set(userId, bits | wildcard);
    };
    if (m.streamId === null) {
      for (const id of state.messaging.conversations.get(m.recipientId)?.userIds ?? []) received(id, rows.get(id) ?? 0);
      continue;
    }
    const stream = state.streams.get(m.streamId);
    if (!stream) continue;
    for (const [userId, bits] of rows) if ((bits & Flag.HISTORICAL) === 0) received(userId, bits);
    if (!m.recipientsListed) {
      let ranges = rangesByStream.get(m.streamId);
      if (!ranges) rangesByStream.set(m.streamId, (ranges = await channelRanges(actor, m.streamId)));
      for (const [userId, r] of ranges) if (!readers.has(userId) && coveredBy(r, m.id)) received(userId, rows.get(userId) ?? 0);
    }
    for (const userId of state.subscriberIds(m.streamId)) {
      const u = state.users.get(userId);
      if (!readers.has(userId) && u?.isActive && hasFullHistoryAccess(state, u, stream)) {
        readers.set(userId, (rows.get(userId) ?? 0) | Flag.READ | Flag.HISTORICAL);
      }
    }
  }
  return out;
}
