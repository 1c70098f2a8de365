// What a realm's actor asks of one of its queue shards (see queueShards.ts), and the answers.
// A frame carries a list of operations, numbered per sender: a shard applies a number once,
// so a batch sent again after a lost answer changes nothing twice.
import type { QueueSnapshot } from '../src/events/queue.js';
import type { ServerEvent } from '../src/events/catalog/index.js';

/**
 * Events for listed queues. A message object shared by many events is sent once in `messages`
 * and named by its index in the event's `message` field.
 */
export interface DeliverOp {
  op: 'deliver';
  messages: Record<string, unknown>[];
  items: { e: ServerEvent; q: string[] }[];
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
