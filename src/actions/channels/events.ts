// Events about channels and subscriptions, each to exactly the users allowed to see it.
import type { RealmActor } from '../../realm/actor.js';
import { Role, type Stream, type User } from '../../model/types.js';
import {
  defaultStreamsEvent, streamCreateEvent, streamDeleteEvent, streamUpdateEvent, subscriptionAddEvent, subscriptionPeerEvent,
  subscriptionRemoveEvent, type ServerEvent, type StreamEvent, type StreamUpdate,
} from '../../events/catalog/index.js';
import type { EventSource } from '../../events/hub.js';
import { activeSubscriberIds, formatStream, formatSubscription } from '../../views/channels.js';
import { canAccessChannelMetadata, canSeeSubscribers, metadataAudience, subscriberAudience } from '../../permissions/channelAccess.js';
import { hasCapability, wantsArchivedChannels } from '../../events/shape.js';


const without = (set: Set<number>, other: Set<number>) => [...set].filter((id) => !other.has(id));

/** `stream create` with the channel as the API shows it. */
export const channelCreated = (actor: RealmActor, stream: Stream, forUnarchiving = false): ServerEvent =>
  streamCreateEvent(formatStream(actor.state, stream), forUnarchiving);

export const channelDeleted = (stream: Stream, forArchiving = false): ServerEvent => streamDeleteEvent(stream.id, forArchiving);

/** `stream update` naming the channel as `stream` calls it. */
export const channelChanged = (
  stream: Stream,
  property: string,
  value: StreamUpdate['value'],
  extra?: Pick<StreamUpdate, 'history_public_to_subscribers' | 'is_web_public' | 'rendered_description'>,
): StreamEvent => streamUpdateEvent(stream.id, stream.name, property, value, extra);

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
    actor.events.publish(channelCreated(actor, stream), gained);
    const seeing = gained.filter((id) => canSeeSubscribers(actor.state, actor.user(id)!, stream));
    const subscribers = activeSubscriberIds(actor.state, stream.id);
    if (seeing.length && subscribers.length) {
      actor.events.publish(subscriptionPeerEvent('peer_add', [stream.id], subscribers), seeing);
    }
  }
  if (lost.length) actor.events.publish(channelDeleted(stream), lost);
}

/** Tells the channel's other watchers that users joined (peer_add) or left (peer_remove). */
export function publishPeerEvents(actor: RealmActor, op: 'peer_add' | 'peer_remove', changed: Map<Stream, Set<number>>): void {
  for (const [stream, userIds] of changed) {
    if (userIds.size === 0) continue;
    const audience = [...subscriberAudience(actor.state, stream)].filter((id) => !userIds.has(id));
    actor.events.publish(subscriptionPeerEvent(op, [stream.id], [...userIds].sort((a, b) => a - b)), audience);
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
    return subscriptionAddEvent(subscriptions);
  }, [user.id]);
}

export function publishSubscriptionRemove(actor: RealmActor, user: User, streams: Stream[]): void {
  actor.events.publish(subscriptionRemoveEvent(streams.map((s) => ({ name: s.name, stream_id: s.id }))), [user.id]);
}

export function publishDefaultStreams(actor: RealmActor): void {
  const ids = [...actor.state.streams.values()].filter((s) => s.isDefault).map((s) => s.id).sort((a, b) => a - b);
  const audience = actor.state.activeUsers().filter((u) => u.role !== Role.GUEST).map((u) => u.id);
  actor.events.publish(defaultStreamsEvent(ids), audience);
}

/** The channels a user may see, each with whether they may also see its subscribers. */
export function channelVisibility(actor: RealmActor, user: User): Map<number, boolean> {
  const out = new Map<number, boolean>();
  for (const stream of actor.state.streams.values()) {
    if (canAccessChannelMetadata(actor.state, user, stream)) out.set(stream.id, canSeeSubscribers(actor.state, user, stream));
  }
  return out;
}

/** An event about an archived channel reaches only clients that list archived channels. */
const ifListed = (stream: Stream, event: ServerEvent): EventSource => (stream.isArchived ? (q) => (wantsArchivedChannels(q) ? event : null) : event);

/**
 * Tells one user which channels came into or went out of their sight since `before` (a role
 * change, as Zulip's send_stream_events_for_role_update does): `stream create` followed by the
 * subscribers they may see, or `stream delete`.
 */
export function publishChannelVisibilityChange(actor: RealmActor, userId: number, before: Map<number, boolean>): void {
  const user = actor.user(userId);
  if (!user?.isActive) return;
  const after = channelVisibility(actor, user);
  for (const [streamId, seesSubscribers] of after) {
    const stream = actor.state.streams.get(streamId)!;
    const had = before.get(streamId);
    if (had === undefined) actor.events.publish(ifListed(stream, channelCreated(actor, stream)), [userId]);
    if (seesSubscribers && had !== true) {
      const subscribers = activeSubscriberIds(actor.state, streamId);
      if (subscribers.length) actor.events.publish(ifListed(stream, subscriptionPeerEvent('peer_add', [streamId], subscribers)), [userId]);
    }
  }
  for (const streamId of before.keys()) {
    const stream = actor.state.streams.get(streamId);
    if (stream && !after.has(streamId)) actor.events.publish(ifListed(stream, channelDeleted(stream)), [userId]);
  }
}

/** Who may see each private channel: membership of the groups in its settings decides it. */
export function privateChannelAudiences(actor: RealmActor): Map<Stream, Set<number>> {
  const out = new Map<Stream, Set<number>>();
  for (const stream of actor.state.streams.values()) {
    if (stream.inviteOnly && !stream.isWebPublic) out.set(stream, metadataAudience(actor.state, stream));
  }
  return out;
}

/**
 * After group membership changed: users who can now see a private channel get it with its
 * subscribers, users who no longer can get `stream delete` (as Zulip's
 * bulk_add_members_to_user_groups and its siblings send).
 */
export function publishPrivateChannelAudienceChanges(actor: RealmActor, before: Map<Stream, Set<number>>): void {
  for (const [old, was] of before) {
    const stream = actor.state.streams.get(old.id);
    if (!stream) continue;
    const now = metadataAudience(actor.state, stream);
    const gained = without(now, was);
    const lost = without(was, now);
    if (gained.length) {
      actor.events.publish(ifListed(stream, channelCreated(actor, stream)), gained);
      const subscribers = activeSubscriberIds(actor.state, stream.id);
      if (subscribers.length) actor.events.publish(ifListed(stream, subscriptionPeerEvent('peer_add', [stream.id], subscribers)), gained);
    }
    if (lost.length) actor.events.publish(ifListed(stream, channelDeleted(stream)), lost);
  }
}
