// The `message` event: one per receiving queue, shaped for the queue's client (Markdown or
// HTML, gravatar, empty topic name, sender hidden from limited guests), with that user's
// flags. The message is described once (events/messageFanout.ts) and each shape of its object
// made once; the hub holding the queues (here, or each queue shard) makes the events.
import type { RealmActor } from '../../realm/actor.js';
import type { MessageRecord } from '../../model/messageState.js';
import { Role } from '../../model/types.js';
import { SHAPE_EMPTY_TOPIC, SHAPE_GRAVATAR, SHAPE_MARKDOWN, SHAPE_SENDER_HIDDEN } from '../../events/messageFanout.js';
import { formatMessage, withInaccessibleSender } from '../../views/messages.js';
import { everyoneSeesAllUsers, senderHiddenFrom } from '../../permissions/userAccess.js';
import { apiEmailIsReal } from '../../permissions/email.js';
import { flagNames } from '../../db/flags.js';
import { topicLinksFor } from '../../views/topicLinks.js';
import type { Recipients } from './recipientBits.js';

export interface Delivery {
  message: MessageRecord;
  /** The receiving users with their flag bits. */
  recipients: Recipients;
  /** The sender's queue for local echo and the client's id for the message. */
  senderQueueId?: string;
  localId?: string;
  /** Queues registered with all_public_streams also get messages of public channels. */
  publicChannel: boolean;
}

export function publishMessage(actor: RealmActor, d: Delivery): void {
  const { state } = actor;
  const m = d.message;
  const sender = actor.user(m.senderId);
  const links = m.streamId === null ? [] : topicLinksFor(actor, m.topic);
  // Made at their final length: a large channel's are thousands long.
  const users: number[] = new Array<number>(d.recipients.size);
  const flags: number[] = new Array<number>(d.recipients.size);
  let count = 0;
  const flagNameSets = new Map<number, string[]>();
  const hidden = new Set<number>();
  const limited = m.streamId !== null && !everyoneSeesAllUsers(state);
  const add = (userId: number, bits: number) => {
    users[count] = userId;
    flags[count++] = bits;
    if (bits >= 0 && !flagNameSets.has(bits)) flagNameSets.set(bits, flagNames(bits));
    if (!limited) return;
    // Only a guest may be kept from seeing the sender (see canAccessAllUsers).
    const viewer = actor.user(userId);
    if (viewer?.role === Role.GUEST && senderHiddenFrom(state, viewer, m)) hidden.add(userId);
  };
  // The sender first: with thousands of recipients, the sender sees their message soonest.
  add(m.senderId, d.recipients.get(m.senderId) ?? -1);
  d.recipients.forEach((bits, userId) => {
    if (userId !== m.senderId) add(userId, bits);
  });
  if (d.publicChannel) {
    const extra = new Set<number>();
    for (const queue of actor.events.allPublicStreamsQueues()) {
      const u = state.users.get(queue.userId);
      // Never guests: they see only channels they are subscribed to (CVE-2021-30479).
      if (u?.isActive && u.role !== Role.GUEST && !d.recipients.has(u.id) && u.id !== m.senderId) extra.add(u.id);
    }
    for (const userId of extra) add(userId, -1);
  }
  // Each shape of the message object is made once, when a queue of that shape first needs it.
  const shapes: (Record<string, unknown> | undefined)[] = [];
  const message = (shape: number) => {
    let shaped = shapes[shape];
    if (!shaped) {
      shaped = formatMessage(
        actor,
        null,
        m,
        [],
        { applyMarkdown: (shape & SHAPE_MARKDOWN) !== 0, clientGravatar: (shape & SHAPE_GRAVATAR) !== 0, allowEmptyTopicName: (shape & SHAPE_EMPTY_TOPIC) !== 0 },
        links,
      );
      if (shape & SHAPE_SENDER_HIDDEN) shaped = withInaccessibleSender(actor, shaped);
      shapes[shape] = shaped;
    }
    return shaped;
  };
  actor.events.publishMessage({
    message,
    users,
    flags,
    flagNames: flagNameSets,
    hidden,
    senderEmailReal: !!sender && apiEmailIsReal(sender),
    publicChannel: d.publicChannel,
    echo: d.senderQueueId !== undefined && d.localId !== undefined ? { queueId: d.senderQueueId, userId: m.senderId, localId: d.localId } : undefined,
  });
}
