// The `message` event: one per receiving queue, shaped for the queue's client (Markdown or
// HTML, gravatar, empty topic name), with that user's flags. The message object is built once
// per distinct shape, not once per recipient.
import type { RealmActor } from '../../realm/actor.js';
import type { MessageRecord } from '../../model/messageState.js';
import { Role } from '../../model/types.js';
import type { EventQueue } from '../../events/queue.js';
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
  const shapes = new Map<string, Record<string, unknown>>();
  const links = m.streamId === null ? [] : topicLinksFor(actor, m.topic);
  const shapeFor = (queue: EventQueue) => {
    const viewer = actor.user(queue.userId) ?? null;
    const gravatarHidden = queue.opts.clientGravatar && !!sender && apiEmailIsReal(sender);
    const emptyTopic = hasCapability(queue, 'empty_topic_name');
    const senderHidden = senderHiddenFrom(state, viewer, m);
    const key = `${queue.opts.applyMarkdown}|${gravatarHidden}|${emptyTopic}|${senderHidden}`;
    let shaped = shapes.get(key);
    if (!shaped) {
      shaped = formatMessage(
        actor,
        viewer,
        m,
        [],
        { applyMarkdown: queue.opts.applyMarkdown, clientGravatar: queue.opts.clientGravatar, allowEmptyTopicName: emptyTopic },
        links,
      );
      if (senderHidden) shaped = withInaccessibleSender(actor, shaped);
      shapes.set(key, shaped);
    }
    return shaped;
  };
  // The sender first: with thousands of recipients, the sender sees their message soonest.
  const audience = [m.senderId, ...d.recipients.keys()];
  if (d.publicChannel) {
    for (const queue of actor.events.allPublicStreamsQueues()) {
      const u = state.users.get(queue.userId);
      // Never guests: they see only channels they are subscribed to (CVE-2021-30479).
      if (u?.isActive && u.role !== Role.GUEST) audience.push(queue.userId);
    }
  }
  actor.events.publish((queue) => {
    const bits = d.recipients.get(queue.userId);
    if (bits === undefined && !(d.publicChannel && queue.opts.allPublicStreams)) return null;
    const localId = queue.id === d.senderQueueId && queue.userId === m.senderId ? d.localId : undefined;
    return messageEvent(shapeFor(queue), bits === undefined ? [] : flagNames(bits), localId);
  }, audience);
}
