// A message for many queues, described once: the message object in each shape clients ask
// for, the receiving users with their flags, and the users who see its sender hidden. Where
// the queues live (the realm actor's process, or each of its queue shards, which get this
// description instead of one entry per queue) it becomes one event per queue: every queue of
// a receiving user that takes messages gets the event of its shape and that user's flags, one
// event object shared by all the queues with the same shape and flags.
import type { EventQueue } from './queue.js';
import { hasCapability } from './shape.js';
import { messageEvent, type ServerEvent } from './catalog/index.js';

/** Bits of a message's shape: what of the message object depends on the client. */
export const SHAPE_MARKDOWN = 1;
export const SHAPE_GRAVATAR = 2;
export const SHAPE_EMPTY_TOPIC = 4;
export const SHAPE_SENDER_HIDDEN = 8;

export interface MessageFanout {
  /** The message object of a shape (a sum of SHAPE_ bits); made once per shape. */
  message(shape: number): Record<string, unknown>;
  /** Receiving users, each with its flag bits in `flags` (-1: only all_public_streams queues get it). */
  users: readonly number[];
  flags: readonly number[];
  /** The flag names of every value in `flags` but -1. */
  flagNames: ReadonlyMap<number, string[]>;
  /** Users who may not see the sender (limited guests): their shape has SHAPE_SENDER_HIDDEN. */
  hidden: ReadonlySet<number>;
  /** Whether clients with client_gravatar get the sender's avatar as null (its email is real). */
  senderEmailReal: boolean;
  /** A public channel's message: queues with all_public_streams get it without being recipients. */
  publicChannel: boolean;
  /** The sender's queue (of user `userId`), whose event carries the client's local id. */
  echo?: { queueId: string; userId: number; localId: string };
}

/** A queue's shape of the message, from its options (and whether the sender is hidden from it). */
export function messageShape(queue: EventQueue, f: Pick<MessageFanout, 'hidden' | 'senderEmailReal'>): number {
  let shape = queue.messageShapeClass;
  // Read from the options once per queue: they do not change, and thousands of queues are asked.
  if (shape < 0) shape = queue.messageShapeClass = queueShapeClass(queue);
  if (!f.senderEmailReal) shape &= ~SHAPE_GRAVATAR;
  return f.hidden.size > 0 && f.hidden.has(queue.userId) ? shape | SHAPE_SENDER_HIDDEN : shape;
}

/** The shape bits a queue's options give (SHAPE_GRAVATAR for client_gravatar, whatever the sender). */
function queueShapeClass(queue: EventQueue): number {
  return (
    (queue.opts.applyMarkdown ? SHAPE_MARKDOWN : 0) |
    (queue.opts.clientGravatar ? SHAPE_GRAVATAR : 0) |
    (hasCapability(queue, 'empty_topic_name') ? SHAPE_EMPTY_TOPIC : 0)
  );
}

/**
 * Calls `deliver` with each queue of the receiving users that gets the message and its event
 * (queues in `skip` are left out).
 */
export function fanOutMessage(
  f: MessageFanout,
  queuesOf: (userId: number) => Iterable<EventQueue>,
  deliver: (queue: EventQueue, event: ServerEvent) => void,
  skip?: ReadonlySet<string>,
): void {
  const events: (Map<number, ServerEvent> | undefined)[] = [];
  for (let i = 0; i < f.users.length; i++) {
    const bits = f.flags[i]!;
    for (const queue of queuesOf(f.users[i]!)) {
      if (bits < 0 && !(f.publicChannel && queue.opts.allPublicStreams)) continue;
      if (skip?.has(queue.id)) continue;
      const shape = messageShape(queue, f);
      const names = bits < 0 ? [] : f.flagNames.get(bits)!;
      if (f.echo && queue.id === f.echo.queueId && queue.userId === f.echo.userId) {
        deliver(queue, messageEvent(f.message(shape), names, f.echo.localId));
        continue;
      }
      let byFlags = events[shape];
      if (!byFlags) events[shape] = byFlags = new Map();
      let event = byFlags.get(bits);
      if (!event) byFlags.set(bits, (event = messageEvent(f.message(shape), names)));
      deliver(queue, event);
    }
  }
}
