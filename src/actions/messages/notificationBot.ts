// Notification Bot: the realm's system bot that posts the server's own messages (new channel
// announcements, "you were subscribed" notes, topic move notices). Zulip has one cross-realm
// bot for this; here each realm gets its own bot user, created the first time it is needed.
//
// These messages go through the normal send pipeline (checks of the content, group commit,
// events), only without the sender's posting rights. Like Zulip's internal sends, a notice that
// cannot be sent (an archived channel, a deactivated recipient) is logged and dropped: the
// change that caused it has already been committed and answered for.
import { ApiError } from '../../model/errors.js';
import { log } from '../../log.js';
import type { RealmActor } from '../../realm/actor.js';
import { Role, type Stream, type User } from '../../model/types.js';
import { insertUser } from '../../db/users.js';
import { generateApiKey } from '../../auth/keys.js';
import { fakeEmailDomain, realmUrl } from '../../http/urls.js';
import { encodeHashComponent } from '../../render/mentions.js';
import { REALM_LIMITS } from '../../model/limits.js';
import { announceUser } from '../users/create.js';
import { sendMessageNow } from './send.js';
import { realmProperty } from '../../permissions/realmSettings.js';
import { realmBotAddEvent } from '../../events/catalog/index.js';
import { formatBot } from '../../views/bots.js';
import { botAudience } from '../../permissions/bots.js';

export const NOTIFICATION_BOT_NAME = 'Notification Bot';
const GENERIC_BOT = 1;
/** Zulip's max_bulk_new_subscription_messages: above this many new subscribers, no DMs. */
export const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = REALM_LIMITS.max_bulk_new_subscription_messages;

/** The server's own bots of a realm: ownerless, each at a reserved address of the realm's domain. */
export interface SystemBot {
  localPart: string;
  name: string;
}

export const NOTIFICATION_BOT: SystemBot = { localPart: 'notification-bot', name: NOTIFICATION_BOT_NAME };
/** Zulip's EMAIL_GATEWAY_BOT: the default sender of messages mailed to a channel's address. */
export const EMAIL_GATEWAY_BOT: SystemBot = { localPart: 'emailgateway', name: 'Email Gateway' };

export function systemBotEmail(actor: RealmActor, bot: SystemBot): string {
  return `${bot.localPart}@${fakeEmailDomain(actor.services.config, actor.realm)}`;
}

export const notificationBotEmail = (actor: RealmActor) => systemBotEmail(actor, NOTIFICATION_BOT);

/** A system bot of the realm, if it exists: an ownerless bot with the reserved address. */
export function findSystemBot(actor: RealmActor, which: SystemBot): User | undefined {
  const email = systemBotEmail(actor, which).toLowerCase();
  for (const u of actor.state.users.values()) {
    if (u.isBot && u.botOwnerId === null && u.deliveryEmail.toLowerCase() === email) return u;
  }
  return undefined;
}

export const findNotificationBot = (actor: RealmActor) => findSystemBot(actor, NOTIFICATION_BOT);

/** A system bot, created (and announced like any new user) on first use. */
export function ensureSystemBot(actor: RealmActor, which: SystemBot): Promise<User> {
  const known = findSystemBot(actor, which);
  if (known) return Promise.resolve(known);
  return actor.exclusive(async () => {
    const again = findSystemBot(actor, which);
    if (again) return again;
    const bot = await insertUser(actor.sql, {
      realmId: actor.realm.id,
      deliveryEmail: systemBotEmail(actor, which),
      fullName: which.name,
      passwordHash: null,
      apiKey: generateApiKey(),
      role: Role.MEMBER,
      isBot: true,
      botType: GENERIC_BOT,
      botOwnerId: null,
    });
    announceUser(actor, bot);
    // Administrators list every bot of the realm (register `realm_bots`), this one included.
    actor.events.publish(realmBotAddEvent(formatBot(actor, bot)), botAudience(actor.state, bot));
    return bot;
  });
}

/** The Notification Bot, created on first use. */
export const ensureNotificationBot = (actor: RealmActor) => ensureSystemBot(actor, NOTIFICATION_BOT);

export type InternalTarget = { streamId: number; topic: string } | { userIds: number[] };

export interface InternalMessage {
  /** Defaults to the realm's Notification Bot. */
  sender?: User;
  to: InternalTarget;
  content: string;
}

/**
 * Posts a message on the server's behalf through the normal send pipeline. Must not be called
 * from inside `actor.exclusive` (the send takes the mailbox itself). Returns the message id,
 * or null when the message could not be sent (logged).
 */
export async function sendInternalMessage(actor: RealmActor, message: InternalMessage): Promise<number | null> {
  const sender = message.sender ?? (await ensureNotificationBot(actor));
  const to = message.to;
  try {
    const result = await sendMessageNow(actor, sender, {
      type: 'streamId' in to ? 'stream' : 'private',
      to: JSON.stringify('streamId' in to ? to.streamId : to.userIds),
      topic: 'streamId' in to ? to.topic : undefined,
      content: message.content,
      readBySender: true,
      client: 'Internal',
      internal: true,
    });
    return result.id;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    log.warn({ realm: actor.realm.stringId, code: e.code, msg: e.message }, 'internal message not sent');
    return null;
  }
}

/** Zulip's silent_mention_syntax_for_user. */
export const silentMention = (u: User) => `@_**${u.fullName}|${u.id}**`;
const channelLink = (s: Stream) => `#**${s.name}**`;
const topicLink = (s: Stream, topic: string) => `#**${s.name}>${topic}**`;

/** The realm's new-channel announcements channel, when set and still usable. */
function announcementsChannel(actor: RealmActor): Stream | undefined {
  const id = realmProperty(actor.state, 'new_stream_announcements_stream_id');
  if (typeof id !== 'number' || id < 0) return undefined;
  const stream = actor.state.streams.get(id);
  return stream && !stream.isArchived ? stream : undefined;
}

/** `announce=true` on channel creation: one message in the announcements channel. */
export async function announceNewChannels(actor: RealmActor, creator: User, created: Stream[]): Promise<void> {
  const target = announcementsChannel(actor);
  if (!target || created.length === 0) return;
  const links = created.map(channelLink).join(', ');
  const content =
    created.length > 1
      ? `${silentMention(creator)} created the following channels: ${links}.`
      : `${silentMention(creator)} created a new channel ${links}.`;
  await sendInternalMessage(actor, { to: { streamId: target.id, topic: 'new channels' }, content });
}

export function youWereSubscribedMessage(acting: User, channelNames: string[]): string {
  const names = [...channelNames].sort();
  if (names.length === 1) return `${silentMention(acting)} subscribed you to #**${names[0]}**.`;
  return `${silentMention(acting)} subscribed you to the following channels:\n\n${names.map((n) => `* #**${n}**\n`).join('')}`;
}

/**
 * Direct messages to users someone else subscribed, about the existing channels they joined
 * (not those created by the same request). Bots and the acting user get none.
 */
export async function notifyNewSubscribers(actor: RealmActor, acting: User, joined: Map<User, Stream[]>, created: Stream[]): Promise<void> {
  const createdIds = new Set(created.map((s) => s.id));
  const sends: Promise<number | null>[] = [];
  for (const [user, streams] of joined) {
    if (user.id === acting.id || user.isBot) continue;
    const names = streams.filter((s) => !createdIds.has(s.id)).map((s) => s.name);
    if (names.length === 0) continue;
    // Started together so that they share group commits instead of waiting for one each.
    sends.push(sendInternalMessage(actor, { to: { userIds: [user.id] }, content: youWereSubscribedMessage(acting, names) }));
  }
  await Promise.all(sends);
}

export interface MovedMessages {
  from: Stream;
  fromTopic: string;
  to: Stream;
  toTopic: string;
  /** The message named in the request, and how many moved with it. */
  messageId: number;
  count: number;
  /** Nothing is left in the old topic. */
  movedAll: boolean;
  /** The destination topic had messages before the move. */
  destinationHadMessages: boolean;
  /** Only a resolved-topic mark changed: no notice in the new thread. */
  resolveOnly: boolean;
}

function nearMessageUrl(actor: RealmActor, stream: Stream, topic: string, messageId: number): string {
  const channel = `${stream.id}-${encodeHashComponent(stream.name.replace(/ /g, '-'))}`;
  return `${realmUrl(actor.services.config, actor.realm)}/#narrow/channel/${channel}/topic/${encodeHashComponent(topic)}/near/${messageId}`;
}

/** Zulip's breadcrumbs after a move: a notice in the old and/or the new thread, as asked. */
export async function sendMoveNotices(
  actor: RealmActor,
  mover: User,
  moved: MovedMessages,
  notify: { oldThread: boolean; newThread: boolean },
): Promise<void> {
  const user = silentMention(mover);
  const oldLocation = topicLink(moved.from, moved.fromTopic);
  const newLocation = topicLink(moved.to, moved.toTopic);
  if (notify.newThread && (moved.from.id !== moved.to.id || !moved.resolveOnly)) {
    let content: string;
    if (moved.movedAll && !moved.destinationHadMessages) content = `This topic was moved here from ${oldLocation} by ${user}.`;
    else if (moved.count === 1) {
      const link = nearMessageUrl(actor, moved.to, moved.toTopic, moved.messageId);
      content = `[A message](${link}) was moved here from ${oldLocation} by ${user}.`;
    } else content = `${moved.count} messages were moved here from ${oldLocation} by ${user}.`;
    await sendInternalMessage(actor, { to: { streamId: moved.to.id, topic: moved.toTopic }, content });
  }
  if (notify.oldThread) {
    let content: string;
    if (moved.movedAll) content = `This topic was moved to ${newLocation} by ${user}.`;
    else if (moved.count === 1) content = `A message was moved from this topic to ${newLocation} by ${user}.`;
    else content = `${moved.count} messages were moved from this topic to ${newLocation} by ${user}.`;
    await sendInternalMessage(actor, { to: { streamId: moved.from.id, topic: moved.fromTopic }, content });
  }
}
