// Events about channels and subscriptions, each to exactly the users allowed to see it.
import type { RealmActor } from '../../realm/actor.js';
import { Role, type Stream, type User } from '../../model/types.js';
import type { ChatEvent } from '../../events/queue.js';
import type { EventSource } from '../../events/hub.js';
import { activeSubscriberIds, formatStream, formatSubscription } from '../../views/channels.js';
import { canSeeSubscribers, metadataAudience, subscriberAudience } from '../../permissions/channelAccess.js';
import { hasCapability } from '../../events/shape.js';


const without = (set: Set<number>, other: Set<number>) => [...set].filter((id) => !other.has(id));

export function streamCreateEvent(actor: RealmActor, stream: Stream, forUnarchiving = false): ChatEvent {
  return { type: 'stream', op: 'create', streams: [formatStream(actor.state, stream)], for_unarchiving: forUnarchiving };
}

export function streamDeleteEvent(stream: Stream, forArchiving = false): ChatEvent {
  return { type: 'stream', op: 'delete', streams: [{ stream_id: stream.id }], stream_ids: [stream.id], for_archiving: forArchiving };
}

export function streamUpdateEvent(stream: Stream, property: string, value: unknown, extra: Record<string, unknown> = {}): ChatEvent {
  return { type: 'stream', op: 'update', stream_id: stream.id, name: stream.name, property, value, ...extra };
}

/**
 * Publishes a change to a channel's metadata. `before` is who could see the channel before the
 * change: users who gained access get the whole channel (and its subscribers), users who lost
 * it get a delete, everyone else gets the update events.
 */
export function publishStreamChange(actor: RealmActor, stream: Stream, before: Set<number>, updates: EventSource[]): void {
  const after = metadataAudience(actor.state, stream);
  const gained = without(after, before);
  const lost = without(before, after);
  const kept = [...after].filter((id) => before.has(id));
  for (const event of updates) actor.events.publish(event, kept);
  if (gained.length) {
    actor.events.publish(streamCreateEvent(actor, stream), gained);
    const seeing = gained.filter((id) => canSeeSubscribers(actor.state, actor.user(id)!, stream));
    const subscribers = activeSubscriberIds(actor.state, stream.id);
    if (seeing.length && subscribers.length) {
      actor.events.publish({ type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: subscribers }, seeing);
    }
  }
  if (lost.length) actor.events.publish(streamDeleteEvent(stream), lost);
}

/** Tells the channel's other watchers that users joined (peer_add) or left (peer_remove). */
export function publishPeerEvents(actor: RealmActor, op: 'peer_add' | 'peer_remove', changed: Map<Stream, Set<number>>): void {
  for (const [stream, userIds] of changed) {
    if (userIds.size === 0) continue;
    const audience = [...subscriberAudience(actor.state, stream)].filter((id) => !userIds.has(id));
    const event = { type: 'subscription', op, stream_ids: [stream.id], user_ids: [...userIds].sort((a, b) => a - b) };
    actor.events.publish(event, audience);
  }
}

/** `subscription add` to a user who joined channels, shaped by each of their queues' options. */
export function publishSubscriptionAdd(actor: RealmActor, user: User, streams: Stream[]): void {
  actor.events.publish((queue) => {
    const subscriptions = streams.map((stream) =>
      formatSubscription(actor.state, user, stream, actor.state.subscription(user.id, stream.id)!, {
        includeSubscribers: queue.opts.includeSubscribers,
        notificationSettingsNull: hasCapability(queue, 'notification_settings_null'),
      }),
    );
    return { type: 'subscription', op: 'add', subscriptions };
  }, [user.id]);
}

export function publishSubscriptionRemove(actor: RealmActor, user: User, streams: Stream[]): void {
  const subscriptions = streams.map((s) => ({ name: s.name, stream_id: s.id }));
  actor.events.publish({ type: 'subscription', op: 'remove', subscriptions }, [user.id]);
}

export function publishDefaultStreams(actor: RealmActor): void {
  const ids = [...actor.state.streams.values()].filter((s) => s.isDefault).map((s) => s.id).sort((a, b) => a - b);
  const audience = actor.state.activeUsers().filter((u) => u.role !== Role.GUEST).map((u) => u.id);
  actor.events.publish({ type: 'default_streams', default_streams: ids }, audience);
}
