// Mobile push notifications of a new message. After the message committed, the send decides
// here who gets notified (Zulip's rules: direct messages and mentions, wildcard mentions where
// the user allows them, channels and followed topics the user asked pushes for; never in
// muted places except personal mentions) and queues one `push` job per user who has push
// devices. Nothing here can fail the send: problems are logged.
import type { RealmActor } from '../../realm/actor.js';
import type { Subscription, User } from '../../model/types.js';
import { VisibilityPolicy, type MessageRecord } from '../../model/messageState.js';
import { Flag } from '../../db/flags.js';
import { usersWithPushDevices } from '../../db/pushTargets.js';
import { userSettingValue } from '../../model/userSettings.js';
import { realmUrl } from '../../http/urls.js';
import { apiEmail } from '../../views/users.js';
import { plainTextOfHtml, truncatePushContent } from '../../views/pushContent.js';
import type { PushPayload } from '../../jobs/payloads.js';
import type { Recipients } from './recipientBits.js';

/** Zulip's idle rule: no presence activity for this long (or no client receiving messages). */
export const IDLE_AFTER_SECONDS = 140;

export interface PushRecipient {
  userId: number;
  trigger: string;
}

const setting = (user: User, name: string) => userSettingValue(user.settings, name) === true;

/** Whether a user hears of a channel topic at all: not muted (a topic can be unmuted or followed in a muted channel). */
export function notifiableTopic(actor: RealmActor, user: User, streamId: number, topic: string): boolean {
  const policy = actor.state.messaging.userTopic(user.id, streamId, topic)?.visibilityPolicy ?? VisibilityPolicy.INHERIT;
  if (policy === VisibilityPolicy.MUTED) return false;
  const muted = actor.state.subscription(user.id, streamId)?.isMuted === true;
  return !muted || policy === VisibilityPolicy.UNMUTED || policy === VisibilityPolicy.FOLLOWED;
}

/** The settings and trigger names of one way of notifying (mobile push, email). */
interface NotificationKind {
  offline: string;
  followed: string;
  channels: string;
  followedTrigger: string;
  channelTrigger: string;
  subscription: (sub: Subscription | undefined) => boolean | null | undefined;
}

export const NOTIFICATION_KINDS: Record<'push' | 'email', NotificationKind> = {
  push: {
    offline: 'enable_offline_push_notifications',
    followed: 'enable_followed_topic_push_notifications',
    channels: 'enable_stream_push_notifications',
    followedTrigger: 'followed_topic_push_notify',
    channelTrigger: 'stream_push_notify',
    subscription: (sub) => sub?.pushNotifications,
  },
  email: {
    offline: 'enable_offline_email_notifications',
    followed: 'enable_followed_topic_email_notifications',
    channels: 'enable_stream_email_notifications',
    followedTrigger: 'followed_topic_email_notify',
    channelTrigger: 'stream_email_notify',
    subscription: (sub) => sub?.emailNotifications,
  },
};

/** Why this message is notified to this user in this way, or null when it is not. */
export function notificationTrigger(actor: RealmActor, user: User, m: MessageRecord, flags: number, kind: NotificationKind): string | null {
  const offline = setting(user, kind.offline);
  if (m.streamId === null) return offline ? 'direct_message' : null;
  if (flags & Flag.MENTIONED) return offline ? 'mentioned' : null;
  if (!notifiableTopic(actor, user, m.streamId, m.topic)) return null;
  const sub = actor.state.subscription(user.id, m.streamId);
  const followed = actor.state.messaging.userTopic(user.id, m.streamId, m.topic)?.visibilityPolicy === VisibilityPolicy.FOLLOWED;
  const wildcardsNotify =
    (sub?.wildcardMentionsNotify ?? setting(user, 'wildcard_mentions_notify')) ||
    (followed && setting(user, 'enable_followed_topic_wildcard_mentions_notify'));
  if (offline && wildcardsNotify) {
    if (flags & Flag.TOPIC_WILDCARD_MENTIONED) return 'topic_wildcard_mentioned';
    if (flags & Flag.STREAM_WILDCARD_MENTIONED) return 'stream_wildcard_mentioned';
  }
  if (followed && setting(user, kind.followed)) return kind.followedTrigger;
  if (kind.subscription(sub) ?? setting(user, kind.channels)) return kind.channelTrigger;
  return null;
}

/** Why this message is pushed to this user, or null when it is not. */
export const pushTrigger = (actor: RealmActor, user: User, m: MessageRecord, flags: number) =>
  notificationTrigger(actor, user, m, flags, NOTIFICATION_KINDS.push);

/** Idle: no client of the user receives messages, or the user showed no activity lately. */
export function isIdle(actor: RealmActor, userId: number, nowSeconds = Date.now() / 1000): boolean {
  let receiving = false;
  for (const q of actor.events.queuesOf(userId)) if (q.wants('message')) receiving = true;
  if (!receiving) return true;
  const last = actor.state.presence.get(userId)?.lastActiveTime;
  return last == null || nowSeconds - last > IDLE_AFTER_SECONDS;
}

/** The users to push this message to, with why. `recipients`: the receiving users with their flag bits. */
export function pushTargets(actor: RealmActor, m: MessageRecord, recipients: Recipients): PushRecipient[] {
  const out: PushRecipient[] = [];
  recipients.forEach((flags, userId) => {
    if (userId === m.senderId) return;
    const user = actor.state.users.get(userId);
    if (!user || !user.isActive || user.isBot) return;
    // Nobody hears of a message from a user they muted.
    if (actor.state.mutedUsers.get(userId)?.has(m.senderId)) return;
    const trigger = pushTrigger(actor, user, m, flags);
    if (trigger === null) return;
    // An active user is pushed to only when they asked for pushes while online too.
    if (!setting(user, 'enable_online_push_notifications') && !isIdle(actor, userId)) return;
    out.push({ userId, trigger });
  });
  return out;
}

/** The payload every target shares (user_id and trigger are added per user). */
export function pushPayloadBase(actor: RealmActor, m: MessageRecord): Omit<PushPayload, 'user_id' | 'trigger'> | null {
  const { config } = actor.services;
  const sender = actor.user(m.senderId);
  if (!sender) return null;
  const url = realmUrl(config, actor.realm);
  const { content, truncated } = truncatePushContent(plainTextOfHtml(m.renderedContent));
  const where: Partial<PushPayload> = {};
  if (m.streamId !== null) {
    Object.assign(where, { stream: actor.state.streams.get(m.streamId)?.name ?? '', stream_id: m.streamId, topic: m.topic });
  } else {
    const participants = actor.state.messaging.conversations.get(m.recipientId)?.userIds ?? [];
    if (participants.length > 2) where.pm_users = participants.join(',');
  }
  return {
    event: 'message',
    server: config.externalHost,
    realm_id: actor.realm.id,
    realm_name: actor.realm.name,
    realm_uri: url,
    realm_url: url,
    sender_id: sender.id,
    sender_email: apiEmail(config, actor.realm, sender),
    sender_full_name: sender.fullName,
    zulip_message_id: m.id,
    recipient_type: m.streamId === null ? 'private' : 'stream',
    ...where,
    content,
    content_truncated: truncated,
    time: Math.floor(m.dateSent.getTime() / 1000),
  };
}

async function enqueuePushJobs(actor: RealmActor, base: Omit<PushPayload, 'user_id' | 'trigger'>, targets: PushRecipient[]): Promise<void> {
  const { services } = actor;
  const realmId = actor.realm.id;
  const withDevices = new Set(await usersWithPushDevices(services.sql, realmId, targets.map((t) => t.userId)));
  await Promise.all(
    targets
      .filter((t) => withDevices.has(t.userId))
      .map((t) =>
        services.jobs
          .enqueue('push', { realmId, userId: t.userId, payload: Object.assign({}, base, { user_id: t.userId, trigger: t.trigger }) })
          .catch((err: unknown) => services.log.error({ err, realm: actor.realm.stringId, user: t.userId, message: base.zulip_message_id }, 'could not queue a push notification')),
      ),
  );
}

/**
 * Called once a message committed, with its receiving users and their flag bits. Returns at
 * once: the device lookup and the enqueueing happen afterwards, off the request's path.
 */
export function enqueueMessageNotifications(actor: RealmActor, message: MessageRecord, recipients: Recipients): void {
  const { services } = actor;
  try {
    if (!services.config.PUSH_RELAY_URL) return;
    const targets = pushTargets(actor, message, recipients);
    if (targets.length === 0) return;
    const base = pushPayloadBase(actor, message);
    if (!base) return;
    enqueuePushJobs(actor, base, targets).catch((err: unknown) =>
      services.log.error({ err, realm: actor.realm.stringId, message: message.id }, 'could not queue push notifications'),
    );
  } catch (err) {
    services.log.error({ err, realm: actor.realm.stringId, message: message.id }, 'could not work out push notifications');
  }
}
