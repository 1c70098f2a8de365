// Topics of a channel as a user may see them, and users' topic visibility policies
// (POST /user_topics and the legacy muted_topics endpoint).
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, User } from '../../model/types.js';
import { VisibilityPolicy, type UserTopic } from '../../model/messageState.js';
import { canAccessChannelContent } from '../../permissions/channelAccess.js';
import { hasFullHistoryAccess, OPEN_END } from '../../permissions/messageAccess.js';
import { channelTopics, saveUserTopics } from '../../db/topics.js';
import { displayTopic } from '../../views/messages.js';
import { historyRanges } from '../../queries/subscriptionHistory.js';
import { invalidChannelId } from '../channels/channels.js';
import { normalizeTopic } from './input.js';
import { userTopicSet } from './topicPolicy.js';

/** GET /users/me/{stream_id}/topics: newest topic first; protected history shows only the user's periods. */
export async function channelTopicsFor(actor: RealmActor, user: User, streamId: number, allowEmptyTopicName: boolean) {
  const { state } = actor;
  const stream = state.streams.get(streamId);
  if (!stream || !canAccessChannelContent(state, user, stream)) throw invalidChannelId();
  let topics: Array<{ name: string; maxId: number }>;
  if (hasFullHistoryAccess(state, user, stream)) {
    topics = [...(state.messaging.topics.get(streamId)?.values() ?? [])].filter((t) => t.maxId <= state.messaging.publishedUpTo);
  } else {
    const ranges = (await historyRanges(actor, user.id, streamId)).map((r): [number, number] => [r.from, r.to ?? OPEN_END]);
    topics = ranges.length ? await channelTopics(actor.sql, streamId, ranges) : [];
  }
  topics.sort((a, b) => b.maxId - a.maxId);
  return { topics: topics.map((t) => ({ max_id: t.maxId, name: displayTopic(t.name, allowEmptyTopicName) })) };
}

const POLICIES: number[] = Object.values(VisibilityPolicy);

/** The channel a policy is set on: removing a policy needs only that the channel exists. */
function channelForPolicy(actor: RealmActor, user: User, streamId: number, policy: number): Stream {
  const stream = actor.state.streams.get(streamId);
  if (!stream) throw invalidChannelId();
  if (policy !== VisibilityPolicy.INHERIT && !canAccessChannelContent(actor.state, user, stream)) throw invalidChannelId();
  return stream;
}

async function setPolicy(actor: RealmActor, user: User, stream: Stream, topic: string, policy: number): Promise<void> {
  const t: UserTopic = { userId: user.id, streamId: stream.id, topicName: topic, visibilityPolicy: policy, lastUpdated: Math.floor(Date.now() / 1000) };
  await saveUserTopics(actor.sql, [t]);
  actor.state.messaging.putUserTopic(t);
  actor.events.publish(userTopicSet(actor.state, t), [user.id]);
}

/** POST /user_topics. */
export function setUserTopic(actor: RealmActor, user: User, streamId: number, topicName: string, policy: number): Promise<void> {
  if (!POLICIES.includes(policy)) throw badRequest('Invalid visibility_policy');
  const topic = normalizeTopic(topicName);
  return actor.exclusive(async () => {
    const stream = channelForPolicy(actor, user, streamId, policy);
    await setPolicy(actor, user, stream, topic, policy);
  });
}

/** PATCH /users/me/subscriptions/muted_topics (legacy): mute or unmute a topic. */
export function muteTopicLegacy(actor: RealmActor, user: User, channel: { streamId?: number; name?: string }, topicName: string, op: string): Promise<void> {
  if (op !== 'add' && op !== 'remove') throw badRequest(`Invalid muted topic operation: '${op}'`);
  const topic = normalizeTopic(topicName);
  return actor.exclusive(async () => {
    const { state } = actor;
    let streamId = channel.streamId;
    if (streamId === undefined) {
      if (channel.name === undefined) throw badRequest("Missing 'stream_id' argument");
      const byName = state.streamByName(channel.name);
      if (!byName) throw badRequest(`Invalid channel name '${channel.name}'`);
      streamId = byName.id;
    }
    const current = state.messaging.userTopic(user.id, streamId, topic)?.visibilityPolicy ?? VisibilityPolicy.INHERIT;
    if (op === 'add') {
      if (current === VisibilityPolicy.MUTED) throw badRequest('Topic already muted');
      await setPolicy(actor, user, channelForPolicy(actor, user, streamId, VisibilityPolicy.MUTED), topic, VisibilityPolicy.MUTED);
    } else {
      if (current !== VisibilityPolicy.MUTED) throw badRequest('Topic is not muted');
      await setPolicy(actor, user, channelForPolicy(actor, user, streamId, VisibilityPolicy.INHERIT), topic, VisibilityPolicy.INHERIT);
    }
  });
}
