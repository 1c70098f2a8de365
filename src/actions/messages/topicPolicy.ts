// Topics users follow or unmute automatically, following their settings
// `automatically_follow_topics_policy`, `automatically_unmute_topics_in_muted_streams_policy`
// and `automatically_follow_topics_where_mentioned` (Zulip's defaults: follow topics one
// starts, unmute in muted channels on sending, follow where mentioned).
import type { User } from '../../model/types.js';
import { VisibilityPolicy, type UserTopic } from '../../model/messageState.js';
import type { EventQueue } from '../../events/queue.js';
import { mutedTopicsEvent, userTopicEvent, type ServerEvent } from '../../events/catalog/index.js';
import type { RealmState } from '../../model/realmState.js';
import { mutedTopicsList } from '../../views/userTopics.js';
import { topicForQueue } from '../../events/shape.js';

export const AutoPolicy = { ON_PARTICIPATION: 1, ON_SEND: 2, ON_INITIATION: 3, NEVER: 4 } as const;

function numberSetting(user: User, name: string, fallback: number): number {
  const v = user.settings[name];
  return typeof v === 'number' ? v : fallback;
}

export const followPolicy = (u: User) => numberSetting(u, 'automatically_follow_topics_policy', AutoPolicy.ON_INITIATION);
export const unmutePolicy = (u: User) => numberSetting(u, 'automatically_unmute_topics_in_muted_streams_policy', AutoPolicy.ON_SEND);
export const followsWhereMentioned = (u: User) => u.settings.automatically_follow_topics_where_mentioned !== false;

/**
 * The policy a send sets for its sender, or null when it would not make the topic more
 * visible (Zulip's visibility_policy_for_send_message). `initiated`: the first message of the
 * topic the sender can see.
 */
export function policyForSend(sender: User, channelMuted: boolean, current: number, initiated: boolean): number | null {
  if (current === VisibilityPolicy.FOLLOWED) return null;
  const follow = followPolicy(sender);
  const unmute = unmutePolicy(sender);
  const triggers = (policy: number) => policy === AutoPolicy.ON_PARTICIPATION || policy === AutoPolicy.ON_SEND || (initiated && policy === AutoPolicy.ON_INITIATION);
  if (triggers(follow)) return VisibilityPolicy.FOLLOWED;
  if (channelMuted && triggers(unmute)) return current === VisibilityPolicy.UNMUTED ? null : VisibilityPolicy.UNMUTED;
  return null;
}

/** The policy a reaction (participation) sets, or null. */
export function policyForParticipation(user: User, channelMuted: boolean, current: number): number | null {
  if (current === VisibilityPolicy.FOLLOWED) return null;
  if (followPolicy(user) === AutoPolicy.ON_PARTICIPATION) return VisibilityPolicy.FOLLOWED;
  if (channelMuted && unmutePolicy(user) === AutoPolicy.ON_PARTICIPATION && current !== VisibilityPolicy.UNMUTED) {
    return VisibilityPolicy.UNMUTED;
  }
  return null;
}

/** The user_topic event, with the topic as the queue's client shows it. */
export function userTopicChanged(t: UserTopic): (queue: EventQueue) => ServerEvent {
  return (queue) =>
    userTopicEvent({
      stream_id: t.streamId,
      topic_name: topicForQueue(queue, t.topicName),
      last_updated: t.lastUpdated,
      visibility_policy: t.visibilityPolicy,
    });
}

/**
 * What a user's own topic visibility change sends: the deprecated muted_topics list first
 * (as Zulip's do_set_user_topic_visibility_policy), then the user_topic event. Automatic
 * changes (on sending or reacting) send only the latter, as in Zulip.
 */
export function userTopicSet(state: RealmState, t: UserTopic): (queue: EventQueue) => ServerEvent[] {
  const changed = userTopicChanged(t);
  return (queue) => [mutedTopicsEvent(mutedTopicsList(state, t.userId, queue)), changed(queue)];
}
