// What a realm's actor asks of one of its queue shards (see queueShards.ts), and the answers.
// A frame carries a list of operations, numbered per sender: a shard applies a number once,
// so a batch sent again after a lost answer changes nothing twice.
import type { QueueSnapshot } from '../src/events/queue.js';
import type { ServerEvent } from '../src/events/catalog/index.js';

/**
 * A message for the shard's queues of some users (events/messageFanout.ts as plain data): the
 * message object of each shape as an index into the op's `messages`, the users and their flag
 * bits (-1: all_public_streams queues only), flag names per bits value, the users who see the
 * sender hidden, and the queues made after the message in the same batch (`skip`).
 */
export interface MessageFanoutWire {
  shapes: Record<string, number>;
  users: number[];
  flags: number[];
  names: Record<string, string[]>;
  hidden: number[];
  emailReal: boolean;
  pub: boolean;
  echo?: { queueId: string; userId: number; localId: string };
  skip?: string[];
}

/** An event for listed queues, or a message for listed users. */
export type DeliverItem = { e: ServerEvent; q: string[] } | { m: MessageFanoutWire };

/** Deliveries in order. Message objects are sent once in `messages`, named by index. */
export interface DeliverOp {
  op: 'deliver';
  messages: Record<string, unknown>[];
  items: DeliverItem[];
}

export type ShardOp =
  /** A new queue (its options, no events), registered by the actor. */
  | { op: 'create'; queue: QueueSnapshot }
  | DeliverOp
  | { op: 'delete'; queues: string[] }
  /** Every queue of the shard is dropped: the actor took the realm up after a crash, so they may lack events. */
  | { op: 'reset' }
  /** The queues of the shard, without events (an actor taking the realm up from a planned hand-off). */
  | { op: 'list' }
  /** Nothing to do; the answer's `gone` tells the actor which queues the shard dropped (expired, overflowed). */
  | { op: 'sync' };

export interface ShardBatch {
  /** The shard's placement name, `<subdomain>~<k>`. */
  unit: string;
  /** The sending hub (one per activation of the realm's actor). */
  from: string;
  /** Numbered from 1 per sender; 0 for batches that change nothing (list, sync). */
  seq: number;
  ops: ShardOp[];
}

export type ShardReply =
  | { ok: true; gone: string[]; queues?: QueueSnapshot[] }
  /** The shard is not (or no longer) on this worker: look up its owner and send again. */
  | { ok: false; reason: string };
