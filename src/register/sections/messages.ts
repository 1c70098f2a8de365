// Register sections about messages: max_message_id, unread_msgs, starred_messages,
// recent_private_conversations, user_topics (and the legacy muted_topics).
//
// The snapshot stops at the last message whose event was published (`publishedUpTo`, read
// synchronously when the section starts, right after the queue was created): sends still
// committing will reach the new queue as events, so they must not be in the snapshot too.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { RegisterArgs } from '../args.js';
import { topicForQueue } from '../../events/shape.js';
import { Flag, starredMessageIds } from '../../db/flags.js';
import { latestInConversations, maxReceivedMessageId, unreadMessages } from '../../db/narrow.js';
import { cachedReader } from './readerCache.js';
import { mutedTopicsList } from '../../views/userTopics.js';
import { viewerScope } from '../../queries/messages.js';
import { notifiableTopic } from '../../actions/messages/notifications.js';

/** Zulip's MAX_UNREAD_MESSAGES: older unread messages are left out (old_unreads_missing). */
const MAX_UNREAD_MESSAGES = 50000;
const RECENT_CONVERSATIONS_LIMIT = 1000;

const fetchTypesOf = (args: RegisterArgs) => args.fetch_event_types ?? args.event_types ?? null;

/**
 * The newest message the user received (-1 for none), as Zulip computes it: clients keep it
 * from the message events they get, so messages of channels the user is not in must not count.
 */
export async function maxMessageIdSection(actor: RealmActor, user: User): Promise<Record<string, unknown>> {
  const upTo = actor.state.messaging.publishedUpTo;
  const reader = await cachedReader(actor, user);
  return { max_message_id: (await maxReceivedMessageId(actor.sql, actor.realm.id, viewerScope(reader), upTo)) ?? -1 };
}

/**
 * Unread messages as Zulip's aggregate_unread_data gives them: conversations in a fixed order
 * (channel messages by channel id and topic, direct ones by the other user), `count` without
 * muted conversations, and channel-wide or topic-wide mentions only where not muted (the
 * client applies events to exactly this).
 */
export async function unreadMsgsSection(actor: RealmActor, user: User, args: RegisterArgs): Promise<Record<string, unknown>> {
  const types = fetchTypesOf(args);
  // Zulip sends unread_msgs only when both message and update_message_flags are fetched.
  if (types !== null && !types.includes('message')) return {};
  const upTo = actor.state.messaging.publishedUpTo;
  const { state } = actor;
  const reader = await cachedReader(actor, user);
  const rows = (await unreadMessages(actor.sql, actor.realm.id, viewerScope(reader), upTo, MAX_UNREAD_MESSAGES)).reverse();
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const mentions: number[] = [];
  let count = 0;
  const holder = { client_capabilities: args.client_capabilities };
  for (const r of rows) {
    let unmuted = true;
    if (r.streamId !== null) {
      const sub = state.subscription(user.id, r.streamId);
      if (!sub?.active) continue;
      const topic = topicForQueue(holder, r.topic);
      const key = JSON.stringify([r.streamId, topic.toLowerCase()]);
      let entry = streams.get(key);
      if (!entry) streams.set(key, (entry = { stream_id: r.streamId, topic, unread_message_ids: [] }));
      entry.unread_message_ids.push(r.id);
      unmuted = notifiableTopic(actor, user, r.streamId, r.topic);
    } else {
      const ids = state.messaging.conversations.get(r.recipientId)?.userIds ?? [];
      if (ids.length <= 2) {
        const other = ids.find((id) => id !== user.id) ?? user.id;
        let list = pms.get(other);
        if (!list) pms.set(other, (list = []));
        list.push(r.id);
      } else {
        const key = ids.join(',');
        let list = huddles.get(key);
        if (!list) huddles.set(key, (list = []));
        list.push(r.id);
      }
    }
    if (unmuted) count++;
    const wildcard = (r.streamWildcard && r.streamId !== null) || (r.flags & (Flag.STREAM_WILDCARD_MENTIONED | Flag.TOPIC_WILDCARD_MENTIONED)) !== 0;
    if ((r.flags & Flag.MENTIONED) !== 0 || (wildcard && unmuted)) mentions.push(r.id);
  }
  const byStreamAndTopic = (a: string, b: string) => {
    const [sa, ta] = JSON.parse(a) as [number, string];
    const [sb, tb] = JSON.parse(b) as [number, string];
    return sa - sb || (ta < tb ? -1 : ta > tb ? 1 : 0);
  };
  return {
    unread_msgs: {
      pms: [...pms].sort((a, b) => a[0] - b[0]).map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
      streams: [...streams.keys()].sort(byStreamAndTopic).map((k) => streams.get(k)!),
      huddles: [...huddles].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
      mentions,
      count,
      old_unreads_missing: rows.length >= MAX_UNREAD_MESSAGES,
    },
  };
}

export async function starredMessagesSection(actor: RealmActor, user: User): Promise<Record<string, unknown>> {
  const upTo = actor.state.messaging.publishedUpTo;
  return { starred_messages: (await starredMessageIds(actor.sql, user.id)).filter((id) => id <= upTo) };
}

export async function recentPrivateConversationsSection(actor: RealmActor, user: User): Promise<Record<string, unknown>> {
  const { messaging } = actor.state;
  const upTo = messaging.publishedUpTo;
  const latest = await latestInConversations(actor.sql, messaging.directConversationsOf(user.id), upTo);
  latest.sort((a, b) => b.maxId - a.maxId);
  return {
    recent_private_conversations: latest.slice(0, RECENT_CONVERSATIONS_LIMIT).map((c) => ({
      max_message_id: c.maxId,
      user_ids: (messaging.conversations.get(c.recipientId)?.userIds ?? []).filter((id) => id !== user.id),
    })),
  };
}

export function userTopicsSection(actor: RealmActor, user: User, args: RegisterArgs): Record<string, unknown> {
  const holder = { client_capabilities: args.client_capabilities };
  return {
    user_topics: actor.state.messaging.userTopicsOf(user.id).map((t) => ({
      stream_id: t.streamId,
      topic_name: topicForQueue(holder, t.topicName),
      last_updated: t.lastUpdated,
      visibility_policy: t.visibilityPolicy,
    })),
  };
}

/** Legacy form of muted topics: [channel name, topic, timestamp]; left out when user_topics is fetched. */
export function mutedTopicsSection(actor: RealmActor, user: User, args: RegisterArgs): Record<string, unknown> {
  // As Zulip: left out only for a client that named its event types and asked for user_topic
  // too (it reads user_topics); with no event types named, both are sent.
  const types = fetchTypesOf(args);
  if (args.event_types != null && types !== null && types.includes('user_topic')) return {};
  return { muted_topics: mutedTopicsList(actor.state, user.id, { client_capabilities: args.client_capabilities }) };
}
