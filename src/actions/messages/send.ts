// POST /messages. Checks run in the actor's mailbox; the checked send then joins the send
// queue (group commit) and the request is answered once its batch committed.
//
// Rows written by a plain channel send: the message and the sender's flags row, whatever the
// channel's size. Recipients are the channel's subscribers at that moment (they get the event;
// the subscription log says later that they received it). Mentions, alert words and topic
// wildcards add one flags row per user concerned.
import { ApiError, badRequest } from '../../model/errors.js';
import { claimAttachments } from '../files/attachments.js';
import { CacheKey } from '../../realm/caches.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, User } from '../../model/types.js';
import { VisibilityPolicy, type MessageRecord, type UserTopic } from '../../model/messageState.js';
import { checkGroupMentions, renderContent, type RenderedContent } from './render.js';
import { Flag } from '../../db/flags.js';
import { ensureConversation, reserveMessageIds, topicHasMessageIn, topicParticipantIds, type FlagRow, type NewMessage } from '../../db/messages.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { usersInGroupSetting } from '../../permissions/groups.js';
import { checkCanAccessRecipients, checkCanSendDirect, checkCanSendToChannel, hasFullHistoryAccess, OPEN_END } from '../../permissions/messageAccess.js';
import { historyRanges } from '../../queries/subscriptionHistory.js';
import type { PreparedSend } from '../../realm/sendQueue.js';
import { normalizeContent, normalizeTopic, parseChannelTarget, parseDirectTargets } from './input.js';
import { checkTopicAllowed, effectiveTopicsPolicy, findChannel, resolveDirectRecipients } from './recipients.js';
import { followsWhereMentioned, policyForSend, userTopicChanged } from './topicPolicy.js';
import { publishMessage } from './delivery.js';
import { findAlertWords } from '../../render/scan.js';
import { enqueueMessageNotifications } from './notifications.js';
import { enqueueMissedMessageEmails } from '../email/missedMessages.js';
import { metadataAudience } from '../../permissions/channelAccess.js';
import { channelChanged } from '../channels/events.js';
import { triggerOutgoingWebhooks } from '../integrations/serviceBots.js';
import { RecipientBits } from './recipientBits.js';
import { noteDirectMessageSent } from '../users/sight.js';

/** Zulip's Realm.WILDCARD_MENTION_THRESHOLD: larger channels/topics need permission. */
export const WILDCARD_MENTION_THRESHOLD = 15;
const ID_RESERVATION = 64;

export interface SendInput {
  type: 'stream' | 'private';
  to: string;
  topic: string | undefined;
  content: string;
  queueId?: string;
  localId?: string;
  readBySender: boolean;
  client: string;
  idempotencyKey?: string;
  /**
   * A message the server posts itself (Notification Bot): the sender's rights to post in the
   * channel, start topics or write to these users are not checked, as in Zulip's internal sends.
   */
  internal?: boolean;
}

export interface SendResult {
  id: number;
  automatic_new_visibility_policy?: number;
}

/**
 * A message id for the next send, assigned when the send is checked rather than when it is
 * written: the recipients are the subscribers at that moment, and subscription changes record
 * the realm's highest id (maxMessageId), so both must follow the same order. Ids come from
 * the global sequence in blocks; they increase within a realm, with gaps.
 */
async function takeMessageId(actor: RealmActor): Promise<number> {
  const m = actor.state.messaging;
  if (m.reservedIds.length === 0) m.reservedIds = await reserveMessageIds(actor.sql, ID_RESERVATION);
  // A block drawn before another process wrote to this realm could be lower; skip it.
  while (m.reservedIds.length > 0 && m.reservedIds[0]! <= actor.state.maxMessageId) m.reservedIds.shift();
  if (m.reservedIds.length === 0) return takeMessageId(actor);
  return m.reservedIds.shift()!;
}

async function conversationId(actor: RealmActor, target: { streamId: number } | { userIds: number[] }): Promise<number> {
  const m = actor.state.messaging;
  const known = 'streamId' in target ? m.streamConversation(target.streamId) : m.directConversation(target.userIds);
  if (known) return known.id;
  const id = await ensureConversation(actor.sql, actor.realm.id, target);
  m.putConversation({ id, streamId: 'streamId' in target ? target.streamId : null, userIds: 'userIds' in target ? target.userIds : null });
  return id;
}

/** Whether the sender saw no earlier message of the topic (the send starts it for them). */
async function startsTopic(actor: RealmActor, sender: User, stream: Stream, topic: string): Promise<boolean> {
  if (!actor.state.messaging.topic(stream.id, topic)) return true;
  if (hasFullHistoryAccess(actor.state, sender, stream)) return false;
  const ranges = (await historyRanges(actor, sender.id, stream.id)).map((r): [number, number] => [r.from, r.to ?? OPEN_END]);
  return !(await topicHasMessageIn(actor.sql, stream.id, topic, ranges));
}

/** Per channel: its active subscribers who are active users, as of the state's versions. */
const activeSubscribers = new CacheKey('active subscribers', () => new Map<number, { subs: number; users: number; recipients: RecipientList }>());

/** A message's receiving users, as a list and as a set; never changed once made. */
interface RecipientList {
  ids: readonly number[];
  members: ReadonlySet<number>;
}

/**
 * The active subscribers of a channel who are active users: a channel's every send needs them
 * (its recipients), and a large channel's list is kept until a subscription or user changes.
 */
function activeSubscriberIds(actor: RealmActor, streamId: number): RecipientList {
  const { state } = actor;
  const cache = actor.caches.get(activeSubscribers);
  const known = cache.get(streamId);
  if (known && known.subs === state.subscriptionsVersion && known.users === state.usersVersion) return known.recipients;
  const ids = state.subscriberIds(streamId).filter((id) => state.users.get(id)?.isActive);
  const recipients = { ids, members: new Set(ids) };
  cache.set(streamId, { subs: state.subscriptionsVersion, users: state.usersVersion, recipients });
  return recipients;
}

interface Addressee {
  stream: Stream | null;
  topic: string;
  /** Active users who receive the message (subscribers, or the participants). */
  recipients: RecipientList;
  conversation: { streamId: number } | { userIds: number[] };
}

function resolveAddressee(actor: RealmActor, sender: User, input: SendInput): Addressee {
  const { state } = actor;
  if (input.type === 'stream') {
    const stream = findChannel(actor, parseChannelTarget(input.to));
    if (input.topic === undefined) throw badRequest('Missing topic');
    let topic = normalizeTopic(input.topic);
    if (input.internal) {
      if (stream.isArchived) throw badRequest(`Not authorized to send to channel '${stream.name}'`);
      // A channel that only has the empty topic gets server notices there.
      if (effectiveTopicsPolicy(actor, stream) === 'empty_topic_only') topic = '';
    } else {
      checkCanSendToChannel(state, sender, stream);
      checkTopicAllowed(actor, sender, stream, topic);
    }
    return { stream, topic, recipients: activeSubscriberIds(actor, stream.id), conversation: { streamId: stream.id } };
  }
  const users = resolveDirectRecipients(actor, sender, parseDirectTargets(input.to));
  const userIds = [...new Set([sender.id, ...users.map((u) => u.id)])].sort((a, b) => a - b);
  if (!input.internal) {
    checkCanAccessRecipients(state, sender, users);
    checkCanSendDirect(state, sender, users, state.messaging.directConversation(userIds) !== undefined);
  }
  return { stream: null, topic: '', recipients: { ids: userIds, members: new Set(userIds) }, conversation: { userIds } };
}

async function checkWildcards(actor: RealmActor, sender: User, a: Addressee, rendered: RenderedContent): Promise<number[]> {
  if (!a.stream) return [];
  const mayMentionMany = () => hasRealmPermission(actor.state, sender, 'can_mention_many_users_group');
  if (rendered.wildcards.stream && a.recipients.ids.length > WILDCARD_MENTION_THRESHOLD && !mayMentionMany()) {
    throw new ApiError('STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use channel wildcard mentions in this channel.', 400);
  }
  if (!rendered.wildcards.topic) return [];
  const participants = [...new Set([...(await topicParticipantIds(actor.sql, a.stream.id, a.topic)), sender.id])];
  if (participants.length > WILDCARD_MENTION_THRESHOLD && !mayMentionMany()) {
    throw new ApiError('TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.', 400);
  }
  return participants;
}

/** Flag bits of every receiving user (the sender included). */
function recipientFlags(actor: RealmActor, sender: User, a: Addressee, content: string, rendered: RenderedContent, topicParticipants: number[], readBySender: boolean): RecipientBits {
  const { state } = actor;
  const bits = new RecipientBits(a.recipients.ids, a.recipients.members, sender.id);
  const mentioned = new Set(rendered.mentionedUserIds);
  for (const gid of rendered.mentionedGroupIds) for (const u of usersInGroupSetting(state, gid)) mentioned.add(u.id);
  for (const id of mentioned) bits.add(id, Flag.MENTIONED);
  for (const id of topicParticipants) bits.add(id, Flag.TOPIC_WILDCARD_MENTIONED);
  for (const [userId, words] of state.alertWords) {
    if (userId !== sender.id && bits.has(userId) && findAlertWords(content, words).length > 0) bits.add(userId, Flag.HAS_ALERT_WORD);
  }
  if (readBySender) bits.add(sender.id, Flag.READ);
  // A recipient who muted the sender receives the message already read (Zulip's muted senders).
  // Whichever is fewer is walked: the users who muted someone, or the recipients.
  const muting = state.mutedUsers;
  if (muting.size < bits.size) {
    for (const [id, muted] of muting) if (id !== sender.id && muted.has(sender.id)) bits.add(id, Flag.READ);
  } else {
    bits.forEach((_, id) => {
      if (id !== sender.id && muting.get(id)?.has(sender.id)) bits.add(id, Flag.READ);
    });
  }
  return bits;
}

/** Topic policies the send sets: the sender's automatic one and followed-where-mentioned. */
async function topicPolicies(actor: RealmActor, sender: User, a: Addressee, rendered: RenderedContent, now: number): Promise<UserTopic[]> {
  const { state } = actor;
  const stream = a.stream;
  if (!stream) return [];
  const out: UserTopic[] = [];
  const current = (userId: number) => state.messaging.userTopic(userId, stream.id, a.topic)?.visibilityPolicy ?? VisibilityPolicy.INHERIT;
  if (!sender.isBot) {
    const cur = current(sender.id);
    const initiated = cur === VisibilityPolicy.INHERIT && (await startsTopic(actor, sender, stream, a.topic));
    const muted = state.subscription(sender.id, stream.id)?.isMuted === true;
    const policy = policyForSend(sender, muted, cur, initiated);
    if (policy !== null) out.push({ userId: sender.id, streamId: stream.id, topicName: a.topic, visibilityPolicy: policy, lastUpdated: now });
  }
  for (const id of new Set(rendered.mentionedUserIds)) {
    const u = state.users.get(id);
    if (!u || u.isBot || !a.recipients.members.has(id) || !followsWhereMentioned(u) || out.some((t) => t.userId === id)) continue;
    const cur = current(id);
    if (cur === VisibilityPolicy.MUTED || cur === VisibilityPolicy.FOLLOWED) continue;
    out.push({ userId: id, streamId: stream.id, topicName: a.topic, visibilityPolicy: VisibilityPolicy.FOLLOWED, lastUpdated: now });
  }
  return out;
}

/**
 * The channel's first message: recipients learn it from the message event; everyone else who
 * can see the channel gets the channel update Zulip sends when the first message changes, so
 * their `first_message_id` does not stay null.
 */
function publishFirstMessage(actor: RealmActor, stream: Stream, id: number, recipients: RecipientBits): void {
  const others = [...metadataAudience(actor.state, stream)].filter((userId) => !recipients.has(userId));
  if (others.length) actor.events.publish(channelChanged(stream, 'first_message_id', id), others);
}

/** Runs in the mailbox: checks, assigns the id, updates memory, and prepares the rows and events. */
async function prepareSend(actor: RealmActor, sender: User, input: SendInput, content: string, rendered: RenderedContent) {
  const { state } = actor;
  const a = resolveAddressee(actor, sender, input);
  const topicParticipants = await checkWildcards(actor, sender, a, rendered);
  checkGroupMentions(actor, sender, rendered);
  const recipientId = await conversationId(actor, a.conversation);
  const now = new Date();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const policies = await topicPolicies(actor, sender, a, rendered, nowSeconds);
  const id = await takeMessageId(actor);
  const stream = a.stream;
  // The stored row's idempotency key is part of the record from the start: a copy with the
  // key added (spread) would get a hidden class of its own, and a new one for every send.
  const message: MessageRecord & Pick<NewMessage, 'idempotencyKey'> = {
    id,
    realmId: actor.realm.id,
    senderId: sender.id,
    recipientId,
    streamId: stream?.id ?? null,
    topic: a.topic,
    content,
    renderedContent: rendered.html,
    dateSent: now,
    lastEditTime: null,
    lastMovedTime: null,
    editHistory: null,
    isMeMessage: rendered.isMeMessage,
    hasLink: rendered.hasLink,
    hasImage: rendered.hasImage,
    hasAttachment: rendered.links.some((l) => l.includes('/user_uploads/')),
    client: input.client,
    recipientsListed: false,
    mentionsStreamWildcard: !!stream && rendered.wildcards.stream,
    idempotencyKey: input.idempotencyKey ?? null,
  };
  const bits = recipientFlags(actor, sender, a, content, rendered, topicParticipants, input.readBySender);
  const flagRows: FlagRow[] = [{ userId: sender.id, messageId: id, flags: bits.get(sender.id)! }];
  for (const [userId, b] of bits.ownBits()) if (userId !== sender.id) flagRows.push({ userId, messageId: id, flags: b });
  if (message.mentionsStreamWildcard) bits.addToAll(Flag.STREAM_WILDCARD_MENTIONED);

  // Memory changes now, so that the next send (checked before this one commits) sees them.
  const undo: Array<() => void> = [];
  state.maxMessageId = Math.max(state.maxMessageId, id);
  for (const t of policies) {
    const before = state.messaging.userTopic(t.userId, t.streamId, t.topicName);
    state.messaging.putUserTopic(t);
    undo.push(() => state.messaging.putUserTopic(before ?? { ...t, visibilityPolicy: VisibilityPolicy.INHERIT }));
  }
  let firstInStreamId: number | null = null;
  if (stream) {
    const beforeTopic = state.messaging.topic(stream.id, a.topic);
    state.messaging.noteTopicMessage(stream.id, a.topic, id);
    undo.push(() => {
      if (state.messaging.topic(stream.id, a.topic)?.maxId === id) state.messaging.setTopic(stream.id, a.topic, beforeTopic ?? null);
    });
    if (stream.firstMessageId === null) {
      stream.firstMessageId = id;
      firstInStreamId = stream.id;
      undo.push(() => {
        if (stream.firstMessageId === id) stream.firstMessageId = null;
      });
    }
  }

  const send: PreparedSend = {
    message,
    flags: flagRows,
    userTopics: policies.map((t) => ({ ...t, lastUpdated: new Date(t.lastUpdated * 1000) })),
    firstInStreamId,
    afterCommit() {
      const direct = stream ? undefined : state.messaging.conversations.get(recipientId);
      if (direct) noteDirectMessageSent(actor, direct);
      for (const t of policies) actor.events.publish(userTopicChanged(t), [t.userId]);
      state.messaging.publishedUpTo = Math.max(state.messaging.publishedUpTo, id);
      publishMessage(actor, {
        message,
        recipients: bits,
        senderQueueId: input.queueId,
        localId: input.localId,
        publicChannel: !!stream && !stream.inviteOnly,
      });
      enqueueMessageNotifications(actor, message, bits);
      enqueueMissedMessageEmails(actor, message, bits);
      if (firstInStreamId !== null && stream) publishFirstMessage(actor, stream, id, bits);
      triggerOutgoingWebhooks(actor, sender, message, rendered);
    },
    undo() {
      for (const u of undo.reverse()) u();
    },
  };
  const own = policies.find((t) => t.userId === sender.id);
  const result: SendResult = own ? { id, automatic_new_visibility_policy: own.visibilityPolicy } : { id };
  return { send, result };
}

/** Where a checked send would go: a channel and topic, or a direct conversation's participants. */
export interface SendTarget {
  streamId: number | null;
  topic: string;
  /** Sorted participants (the sender included) of a direct message. */
  userIds: number[] | null;
}

/**
 * The checks of a send without sending (a message scheduled for later is checked when it is
 * scheduled, and again as a send when it is delivered). Runs in the mailbox.
 */
export async function checkSendTarget(
  actor: RealmActor,
  sender: User,
  input: Pick<SendInput, 'type' | 'to' | 'topic'>,
  rendered: RenderedContent,
): Promise<SendTarget> {
  const a = resolveAddressee(actor, sender, { ...input, content: '', readBySender: false, client: '' });
  await checkWildcards(actor, sender, a, rendered);
  checkGroupMentions(actor, sender, rendered);
  return { streamId: a.stream?.id ?? null, topic: a.topic, userIds: 'userIds' in a.conversation ? a.conversation.userIds : null };
}

/** Sends a message: checks, then waits for its batch to commit. */
export async function sendMessageNow(actor: RealmActor, sender: User, input: SendInput): Promise<SendResult> {
  const content = normalizeContent(input.content);
  const rendered = await renderContent(actor, content, { senderId: sender.id });
  const { commit, result } = await actor.exclusive(async () => {
    const prepared = await prepareSend(actor, sender, input, content, rendered);
    // Not awaited here: the mailbox moves on while the batch commits.
    return { commit: actor.sendQueue.submit(prepared.send), result: prepared.result };
  });
  await commit;
  if (rendered.links.some((l) => l.includes('/user_uploads/'))) await claimAttachments(actor, sender, result.id, rendered.links);
  return result;
}
