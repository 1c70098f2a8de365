// The `message` event: one per receiving queue, shaped for the queue's client (Markdown or
// HTML, gravatar, empty topic name), with that user's flags. The message object is built once
// per distinct shape, not once per recipient.
import type { RealmActor } from '../../realm/actor.js';
import type { MessageRecord } from '../../model/messageState.js';
import { Role, type User } from '../../model/types.js';
import type { EventQueue } from '../../events/queue.js';
import type { ServerEvent } from '../../events/catalog/index.js';
import { hasCapability } from '../../events/shape.js';
import { formatMessage, withInaccessibleSender } from '../../views/messages.js';
import { senderHiddenFrom } from '../../permissions/userAccess.js';
import { apiEmailIsReal } from '../../permissions/email.js';
import { flagNames } from '../../db/flags.js';
import { topicLinksFor } from '../../views/topicLinks.js';
import { messageEvent } from '../../events/catalog/index.js';

export interface Delivery {
  message: MessageRecord;
  /** Receiving user id → their flag bits. */
  recipients: Map<number, number>;
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
  const senderEmailReal = !!sender && apiEmailIsReal(sender);
  // Thousands of queues get one of a few shapes of the message: each shape (a small number
  // made of the four choices below) is built once, and each shape with each set of flags is
  // one event object that all those queues share (its JSON is then made once too).
  const shapes: (Record<string, unknown> | undefined)[] = [];
  const events: (Map<number, ServerEvent> | undefined)[] = [];
  const shapeOf = (queue: EventQueue, viewer: User | null) =>
    (queue.opts.applyMarkdown ? 1 : 0) |
    (queue.opts.clientGravatar && senderEmailReal ? 2 : 0) |
    (hasCapability(queue, 'empty_topic_name') ? 4 : 0) |
    (senderHiddenFrom(state, viewer, m) ? 8 : 0);
  const shapeFor = (queue: EventQueue, viewer: User | null, shape: number) => {
    let shaped = shapes[shape];
    if (!shaped) {
      shaped = formatMessage(
        actor,
        viewer,
        m,
        [],
        { applyMarkdown: queue.opts.applyMarkdown, clientGravatar: queue.opts.clientGravatar, allowEmptyTopicName: (shape & 4) !== 0 },
        links,
      );
      if (shape & 8) shaped = withInaccessibleSender(actor, shaped);
      shapes[shape] = shaped;
    }
    return shaped;
  };
  // The sender first: with thousands of recipients, the sender sees their message soonest.
  const audience = new Set([m.senderId, ...d.recipients.keys()]);
  if (d.publicChannel) {
    for (const queue of actor.events.allPublicStreamsQueues()) {
      const u = state.users.get(queue.userId);
      // Never guests: they see only channels they are subscribed to (CVE-2021-30479).
      if (u?.isActive && u.role !== Role.GUEST) audience.add(queue.userId);
    }
  }
  actor.events.publish((queue) => {
    const bits = d.recipients.get(queue.userId);
    if (bits === undefined && !(d.publicChannel && queue.opts.allPublicStreams)) return null;
    const flags = bits ?? -1;
    const viewer = actor.user(queue.userId) ?? null;
    const shape = shapeOf(queue, viewer);
    if (queue.id === d.senderQueueId && queue.userId === m.senderId && d.localId !== undefined) {
      return messageEvent(shapeFor(queue, viewer, shape), flags < 0 ? [] : flagNames(flags), d.localId);
    }
    let byFlags = events[shape];
    if (!byFlags) events[shape] = byFlags = new Map();
    let event = byFlags.get(flags);
    if (!event) byFlags.set(flags, (event = messageEvent(shapeFor(queue, viewer, shape), flags < 0 ? [] : flagNames(flags))));
    return event;
  }, audience);
}
