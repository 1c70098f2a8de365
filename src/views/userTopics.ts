// A user's muted topics in the legacy `muted_topics` form ([channel name, topic, timestamp]),
// for register and for the deprecated muted_topics event Zulip still sends at 406.
import type { RealmState } from '../model/realmState.js';
import { VisibilityPolicy } from '../model/messageState.js';
import { topicForQueue, type CapabilityHolder } from '../events/shape.js';

export function mutedTopicsList(state: RealmState, userId: number, holder: CapabilityHolder): Array<[string, string, number]> {
  const out: Array<[string, string, number]> = [];
  for (const t of state.messaging.userTopicsOf(userId)) {
    const stream = state.streams.get(t.streamId);
    if (stream && t.visibilityPolicy === VisibilityPolicy.MUTED) out.push([stream.name, topicForQueue(holder, t.topicName), t.lastUpdated]);
  }
  return out;
}
