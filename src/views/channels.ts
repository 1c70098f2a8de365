// The API forms of a channel (GET /streams, stream events) and of a subscription
// (GET /users/me/subscriptions, subscription events, register), shared by all of them.
import type { RealmState } from '../model/realmState.js';
import { Role, type Stream, type Subscription, type User } from '../model/types.js';
import { formatGroupSetting } from '../permissions/groups.js';
import { CHANNEL_SETTING_NAMES, channelSetting } from '../permissions/channelSettings.js';
import { canAccessChannelMetadata, canSeeSubscribers } from '../permissions/channelAccess.js';

/** Channels at least this large get `partial_subscribers` when the client asked for "partial". */
export const MIN_PARTIAL_SUBSCRIBERS_CHANNEL_SIZE = 1000;

const POST_POLICY_BY_GROUP: Record<string, number> = {
  'role:everyone': 1,
  'role:administrators': 2,
  'role:fullmembers': 3,
  'role:moderators': 4,
};

/** stream_post_policy "administrators only": what the deprecated is_announcement_only means. */
export const STREAM_POST_POLICY_ADMINS = 2;

/** The deprecated stream_post_policy, derived from can_send_message_group. */
export function streamPostPolicy(state: RealmState, stream: Stream): number {
  const value = channelSetting(state, stream, 'can_send_message_group');
  if (typeof value !== 'number') return 1;
  const group = state.groups.get(value);
  return group?.isSystemGroup ? (POST_POLICY_BY_GROUP[group.name] ?? 1) : 1;
}

/** Active users subscribed to the channel, by id. */
export function activeSubscriberIds(state: RealmState, streamId: number): number[] {
  const out: number[] = [];
  for (const sub of state.subsByStream.get(streamId)?.values() ?? []) {
    if (sub.active && state.users.get(sub.userId)?.isActive) out.push(sub.userId);
  }
  return out.sort((a, b) => a - b);
}

/** How many active users are subscribed (formatStream needs only the count: no list, no sort). */
function activeSubscriberCount(state: RealmState, streamId: number): number {
  let n = 0;
  for (const sub of state.subsByStream.get(streamId)?.values() ?? []) {
    if (sub.active && state.users.get(sub.userId)?.isActive) n++;
  }
  return n;
}

/**
 * formatStream's result apart from its live counters, per channel object. It depends on the
 * channel object (replaced on every change but first_message_id, set in place by sends), on
 * users (active members of anonymous group settings, the creator) and on system group ids
 * (fixed), so it is reused while no user changed.
 */
const streamViews = new WeakMap<Stream, { usersVersion: number; view: Record<string, unknown> }>();
/** Active subscriber counts, valid while no user and no subscription changed. */
const subscriberCounts = new WeakMap<RealmState, { usersVersion: number; subscriptionsVersion: number; counts: Map<number, number> }>();

function cachedSubscriberCount(state: RealmState, streamId: number): number {
  let entry = subscriberCounts.get(state);
  if (!entry || entry.usersVersion !== state.usersVersion || entry.subscriptionsVersion !== state.subscriptionsVersion) {
    entry = { usersVersion: state.usersVersion, subscriptionsVersion: state.subscriptionsVersion, counts: new Map() };
    subscriberCounts.set(state, entry);
  }
  let n = entry.counts.get(streamId);
  if (n === undefined) entry.counts.set(streamId, (n = activeSubscriberCount(state, streamId)));
  return n;
}

export function formatStream(state: RealmState, stream: Stream): Record<string, unknown> {
  const cached = streamViews.get(stream);
  let view: Record<string, unknown>;
  if (cached && cached.usersVersion === state.usersVersion) {
    view = cached.view;
  } else {
    view = buildStreamView(state, stream);
    streamViews.set(stream, { usersVersion: state.usersVersion, view });
  }
  // Not a spread with the two fields added: that makes a hidden class per call (per channel of
  // every register).
  return Object.assign({}, view, { first_message_id: stream.firstMessageId, subscriber_count: cachedSubscriberCount(state, stream.id) });
}

function buildStreamView(state: RealmState, stream: Stream): Record<string, unknown> {
  const postPolicy = streamPostPolicy(state, stream);
  const out: Record<string, unknown> = {
    stream_id: stream.id,
    name: stream.name,
    is_archived: stream.isArchived,
    description: stream.description,
    rendered_description: stream.renderedDescription,
    date_created: Math.floor(stream.dateCreated.getTime() / 1000),
    creator_id: stream.creatorId,
    invite_only: stream.inviteOnly,
    is_web_public: stream.isWebPublic,
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === STREAM_POST_POLICY_ADMINS,
    message_retention_days: stream.messageRetentionDays,
    history_public_to_subscribers: stream.historyPublicToSubscribers,
    topics_policy: stream.topicsPolicy,
    first_message_id: stream.firstMessageId,
    folder_id: stream.folderId,
    is_recently_active: stream.isRecentlyActive,
    subscriber_count: activeSubscriberCount(state, stream.id),
    // Traffic statistics are not computed.
    stream_weekly_traffic: null,
  };
  for (const name of CHANNEL_SETTING_NAMES) out[name] = formatGroupSetting(state, channelSetting(state, stream, name));
  return out;
}

export interface SubscriptionViewOptions {
  /** From register / GET: false, true or "partial". */
  includeSubscribers: boolean | 'partial';
  /** Client capability notification_settings_null: keep null for "inherit the user default". */
  notificationSettingsNull: boolean;
}

/** The user's global defaults for per-channel notification settings left null. */
function userNotificationDefaults(user: User): Record<string, boolean> {
  const s = user.settings as Record<string, unknown>;
  const flag = (key: string, fallback: boolean) => (typeof s[key] === 'boolean' ? (s[key] as boolean) : fallback);
  return {
    desktop_notifications: flag('enable_stream_desktop_notifications', false),
    audible_notifications: flag('enable_stream_audible_notifications', false),
    push_notifications: flag('enable_stream_push_notifications', false),
    email_notifications: flag('enable_stream_email_notifications', false),
    wildcard_mentions_notify: flag('wildcard_mentions_notify', true),
  };
}

/** Adds `subscribers` or `partial_subscribers` when the viewer asked and may see them. */
export function addSubscribers(
  state: RealmState,
  viewer: User,
  stream: Stream,
  out: Record<string, unknown>,
  include: boolean | 'partial',
): void {
  if (include === false) return;
  const ids = canSeeSubscribers(state, viewer, stream) ? activeSubscriberIds(state, stream.id) : [];
  // Without activity tracking the partial list is the full list: a valid superset of
  // "all bots and recently active users".
  if (include === 'partial' && ids.length >= MIN_PARTIAL_SUBSCRIBERS_CHANNEL_SIZE) out.partial_subscribers = ids;
  else out.subscribers = ids;
}

export function formatSubscription(
  state: RealmState,
  viewer: User,
  stream: Stream,
  sub: Subscription,
  opts: SubscriptionViewOptions,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...formatStream(state, stream),
    color: sub.color,
    is_muted: sub.isMuted,
    in_home_view: !sub.isMuted,
    pin_to_top: sub.pinToTop,
    desktop_notifications: sub.desktopNotifications,
    audible_notifications: sub.audibleNotifications,
    push_notifications: sub.pushNotifications,
    email_notifications: sub.emailNotifications,
    wildcard_mentions_notify: sub.wildcardMentionsNotify,
  };
  if (!opts.notificationSettingsNull) {
    for (const [key, value] of Object.entries(userNotificationDefaults(viewer))) {
      if (out[key] === null) out[key] = value;
    }
  }
  addSubscribers(state, viewer, stream, out, opts.includeSubscribers);
  return out;
}

/** Zulip orders channel lists by name, code point by code point. */
export const byName = (a: Record<string, unknown>, b: Record<string, unknown>) => {
  const x = String(a.name);
  const y = String(b.name);
  return x < y ? -1 : x > y ? 1 : 0;
};

export interface ChannelListOptions {
  includeSubscribers: boolean | 'partial';
  notificationSettingsNull: boolean;
  /** Client capability archived_channels: without it archived channels are left out. */
  includeArchived: boolean;
}

/** The `subscription` section of register: subscriptions, unsubscribed, never_subscribed. */
export function subscriptionLists(state: RealmState, user: User, opts: ChannelListOptions) {
  const subscriptions: Record<string, unknown>[] = [];
  const unsubscribed: Record<string, unknown>[] = [];
  const never_subscribed: Record<string, unknown>[] = [];
  for (const stream of state.streams.values()) {
    if (stream.isArchived && !opts.includeArchived) continue;
    const sub = state.subscription(user.id, stream.id);
    if (sub?.active) {
      subscriptions.push(formatSubscription(state, user, stream, sub, opts));
    } else if (canAccessChannelMetadata(state, user, stream)) {
      // Former subscribers keep the channel only while they may still see it.
      if (sub) {
        unsubscribed.push(formatSubscription(state, user, stream, sub, opts));
      } else {
        const entry = formatStream(state, stream);
        addSubscribers(state, user, stream, entry, opts.includeSubscribers);
        never_subscribed.push(entry);
      }
    }
  }
  return { subscriptions: subscriptions.sort(byName), unsubscribed: unsubscribed.sort(byName), never_subscribed: never_subscribed.sort(byName) };
}

/** The `stream` section of register: every channel the user may see. */
export function visibleStreams(state: RealmState, user: User, includeArchived: boolean): Record<string, unknown>[] {
  return [...state.streams.values()]
    .filter((s) => (includeArchived || !s.isArchived) && canAccessChannelMetadata(state, user, s))
    .map((s) => formatStream(state, s))
    .sort(byName);
}

/** The `default_streams` section: ids of the default channels (none for guests). */
export function defaultStreamIds(state: RealmState, user: User): number[] {
  if (user.role === Role.GUEST) return [];
  return [...state.streams.values()].filter((s) => s.isDefault && !s.isArchived).map((s) => s.id).sort((a, b) => a - b);
}
