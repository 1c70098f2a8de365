// Subscribing (which also creates channels) and unsubscribing users.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, Subscription, User } from '../../model/types.js';
import { canAccessChannelContent, canAccessChannelMetadata, canRemoveSubscribers, canSubscribeOthers, metadataAudience } from '../../permissions/channelAccess.js';
import { insertSubscriptionLog, saveSubscription, type SubscriptionLogEntry } from '../../db/subscriptions.js';
import { checkChannelName, resolvePrincipals, streamDoesNotExist } from './channels.js';
import { createChannelRows, prepareNewChannels, type NewChannelOptions } from './create.js';
import { publishDefaultStreams, publishPeerEvents, publishSubscriptionAdd, publishSubscriptionRemove, channelCreated, channelDeleted } from './events.js';
import { announceNewChannels, MAX_BULK_NEW_SUBSCRIPTION_MESSAGES, notifyNewSubscribers } from '../messages/notificationBot.js';
import { isGuest } from '../../model/roles.js';
import { limitedSight, publishSightChanges } from '../users/sight.js';

/** Zulip's palette for new subscriptions; each user gets the colours they use least. */
const STREAM_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

export const HEX_COLOR_RE = /^#([0-9a-fA-F]{6}|[0-9a-fA-F]{3})$/;

function pickColor(actor: RealmActor, userId: number): string {
  const used = new Map<string, number>();
  for (const sub of actor.state.subsByUser.get(userId)?.values() ?? []) used.set(sub.color, (used.get(sub.color) ?? 0) + 1);
  let best = STREAM_COLORS[0]!;
  for (const c of STREAM_COLORS) if ((used.get(c) ?? 0) < (used.get(best) ?? 0)) best = c;
  return best;
}

export interface SubscribeInput extends NewChannelOptions {
  subscriptions: { name: string; description?: string; color?: string }[];
  principals?: number[] | string[];
  authorizationErrorsFatal: boolean;
  /** Post about created channels in the realm's new-channel announcements channel. */
  announce?: boolean;
  /** Notify others this request subscribed (Notification Bot DMs); default true. */
  sendNewSubscriptionMessages?: boolean;
}

export interface SubscribeResult {
  subscribed: Record<string, string[]>;
  already_subscribed: Record<string, string[]>;
  unauthorized?: string[];
  new_subscription_messages_sent?: boolean;
}

/**
 * POST /users/me/subscriptions: subscribes users to channels, creating the missing ones.
 * Notification Bot's messages follow once the change is committed and announced.
 */
export async function subscribe(actor: RealmActor, acting: User, input: SubscribeInput): Promise<SubscribeResult> {
  const { result, created, joined } = await subscribeNow(actor, acting, input);
  const sendDms = input.sendNewSubscriptionMessages ?? true;
  if (sendDms) {
    const withinLimit = joined.size <= MAX_BULK_NEW_SUBSCRIPTION_MESSAGES;
    if (withinLimit) await notifyNewSubscribers(actor, acting, joined, created);
    result.new_subscription_messages_sent = withinLimit;
  }
  if (input.announce) await announceNewChannels(actor, acting, created);
  return result;
}

function subscribeNow(
  actor: RealmActor,
  acting: User,
  input: SubscribeInput,
): Promise<{ result: SubscribeResult; created: Stream[]; joined: Map<User, Stream[]> }> {
  return actor.exclusive(async () => {
    const { state } = actor;
    if (isGuest(acting)) throw badRequest('Not allowed for guest users');
    const requested = new Map<string, { name: string; description?: string; color?: string }>();
    for (const s of input.subscriptions) {
      const name = checkChannelName(s.name);
      if (s.color !== undefined && !HEX_COLOR_RE.test(s.color)) throw badRequest('add.color is not a valid hex color code');
      if (!requested.has(name.toLowerCase())) requested.set(name.toLowerCase(), { ...s, name });
    }
    const targets = input.principals?.length ? resolvePrincipals(actor, acting, input.principals) : [acting];
    const subscribingOthers = targets.some((u) => u.id !== acting.id);

    const existing: Stream[] = [];
    const missing: { name: string; description?: string }[] = [];
    for (const r of requested.values()) {
      const stream = state.streamByName(r.name);
      if (stream) existing.push(stream);
      else missing.push(r);
    }
    const unauthorized = existing.filter((s) => !canAccessChannelContent(state, acting, s));
    if (unauthorized.length && input.authorizationErrorsFatal) {
      throw badRequest(`Unable to access channel (${unauthorized[0]!.name}).`);
    }
    const authorized = existing.filter((s) => !unauthorized.includes(s));
    if (subscribingOthers && authorized.some((s) => !canSubscribeOthers(state, acting, s))) {
      throw badRequest('Insufficient permission');
    }
    const prepared = missing.length ? prepareNewChannels(actor, acting, missing, input) : [];

    const colorByName = new Map([...requested.values()].filter((r) => r.color).map((r) => [r.name.toLowerCase(), r.color!]));
    const before = new Map(authorized.map((s) => [s.id, metadataAudience(state, s)]));
    const sightBefore = limitedSight(actor);
    const result: SubscribeResult = { subscribed: {}, already_subscribed: {} };
    const added: { user: User; stream: Stream; sub: Subscription }[] = [];
    const created = await actor.sql.begin(async (tx) => {
      const newStreams = await createChannelRows(actor, tx, acting, prepared);
      const log: SubscriptionLogEntry[] = [];
      for (const user of targets) {
        for (const stream of [...authorized, ...newStreams]) {
          const current = state.subscription(user.id, stream.id);
          if (current?.active) {
            (result.already_subscribed[String(user.id)] ??= []).push(stream.name);
            continue;
          }
          const sub: Subscription = current
            ? { ...current, active: true }
            : {
                userId: user.id, streamId: stream.id, active: true,
                color: colorByName.get(stream.name.toLowerCase()) ?? pickColor(actor, user.id),
                isMuted: false, pinToTop: false, desktopNotifications: null, audibleNotifications: null,
                pushNotifications: null, emailNotifications: null, wildcardMentionsNotify: null,
              };
          await saveSubscription(tx, sub);
          log.push({ userId: user.id, streamId: stream.id, event: 'subscribed', messageIdAt: state.maxMessageId });
          added.push({ user, stream, sub });
          (result.subscribed[String(user.id)] ??= []).push(stream.name);
        }
      }
      await insertSubscriptionLog(tx, log);
      return newStreams;
    });

    for (const stream of created) state.putStream(stream);
    for (const { sub } of added) state.putSubscription(sub);

    for (const stream of created) actor.events.publish(channelCreated(actor, stream), metadataAudience(state, stream));
    for (const stream of authorized) {
      const old = before.get(stream.id)!;
      const gained = [...metadataAudience(state, stream)].filter((id) => !old.has(id));
      if (gained.length) actor.events.publish(channelCreated(actor, stream), gained);
    }
    if (created.some((s) => s.isDefault)) publishDefaultStreams(actor);
    const byUser = new Map<User, Stream[]>();
    const byStream = new Map<Stream, Set<number>>();
    for (const { user, stream } of added) {
      byUser.set(user, [...(byUser.get(user) ?? []), stream]);
      byStream.set(stream, (byStream.get(stream) ?? new Set()).add(user.id));
    }
    // Guests who may not see everyone see the users of their channels (as Zulip, users first).
    publishSightChanges(actor, sightBefore);
    for (const [user, streams] of byUser) publishSubscriptionAdd(actor, user, streams);
    publishPeerEvents(actor, 'peer_add', byStream);

    if (!input.authorizationErrorsFatal) result.unauthorized = unauthorized.map((s) => s.name);
    return { result, created, joined: byUser };
  });
}

/** DELETE /users/me/subscriptions. */
export function unsubscribe(
  actor: RealmActor,
  acting: User,
  names: string[],
  principals: number[] | string[] | undefined,
): Promise<{ removed: string[]; not_removed: string[] }> {
  return actor.exclusive(async () => {
    const { state } = actor;
    const streams: Stream[] = [];
    for (const raw of names) {
      const stream = state.streamByName(raw.trim());
      // A private channel the caller cannot see does not exist for them.
      if (!stream || !canAccessChannelMetadata(state, acting, stream)) throw streamDoesNotExist(raw.trim());
      if (!streams.includes(stream)) streams.push(stream);
    }
    const targets = principals?.length ? resolvePrincipals(actor, acting, principals) : [acting];
    const controlsDirectly = (u: User) => u.id === acting.id || (u.isBot && u.botOwnerId === acting.id);
    if (targets.some((u) => !controlsDirectly(u)) && streams.some((s) => !canRemoveSubscribers(state, acting, s))) {
      throw badRequest('Insufficient permission');
    }

    const result = { removed: [] as string[], not_removed: [] as string[] };
    const removed: Subscription[] = [];
    for (const user of targets) {
      for (const stream of streams) {
        const current = state.subscription(user.id, stream.id);
        if (current?.active) {
          removed.push({ ...current, active: false });
          result.removed.push(stream.name);
        } else {
          result.not_removed.push(stream.name);
        }
      }
    }
    if (removed.length === 0) return result;
    const sightBefore = limitedSight(actor);
    await actor.sql.begin(async (tx) => {
      for (const sub of removed) await saveSubscription(tx, sub);
      await insertSubscriptionLog(
        tx,
        removed.map((s) => ({ userId: s.userId, streamId: s.streamId, event: 'unsubscribed' as const, messageIdAt: state.maxMessageId })),
      );
    });
    for (const sub of removed) state.putSubscription(sub);

    const byUser = new Map<number, Stream[]>();
    const byStream = new Map<Stream, Set<number>>();
    for (const sub of removed) {
      const stream = state.streams.get(sub.streamId)!;
      byUser.set(sub.userId, [...(byUser.get(sub.userId) ?? []), stream]);
      byStream.set(stream, (byStream.get(stream) ?? new Set()).add(sub.userId));
    }
    for (const [userId, userStreams] of byUser) {
      const user = actor.user(userId)!;
      publishSubscriptionRemove(actor, user, userStreams);
      // Former subscribers of a private channel lose its metadata (CVE-2023-47642).
      for (const stream of userStreams) {
        if (!canAccessChannelMetadata(state, user, stream)) actor.events.publish(channelDeleted(stream), [user.id]);
      }
    }
    publishPeerEvents(actor, 'peer_remove', byStream);
    publishSightChanges(actor, sightBefore);
    return result;
  });
}
