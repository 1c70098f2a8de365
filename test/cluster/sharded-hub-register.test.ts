// What a register's failure leaves in the realm actor's ShardedHub (no processes: the shard is
// a function that records the batches). A queue dropped before its shard answered leaves no
// creation waited for and reaches the shard as a delete; a shard that does not take the
// creation within the retry budget has the queue dropped here and the shard reset.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ShardedHub } from '../../cluster/shardedHub.js';
import type { ShardBatch, ShardReply } from '../../cluster/shardOps.js';
import type { QueueOptions } from '../../src/events/queue.js';

const limits = { heartbeatSeconds: 45, maxEvents: 100, maxBytes: 1_000_000 };

const options = (userId: number): QueueOptions => ({
  userId, eventTypes: null, messageFilter: null, clientCapabilities: {}, applyMarkdown: false, clientGravatar: true,
  allPublicStreams: false, includeSubscribers: false, slimPresence: false, lifespanSeconds: 600, clientName: 'test',
});

/** A hub whose shard answers each batch with `answer` (or never, while it returns null). */
function hubWith(answer: (batch: ShardBatch) => Promise<ShardReply> | null, retryBudgetMs = 1000) {
  const batches: ShardBatch[] = [];
  const hub = new ShardedHub(limits, {
    subdomain: 'shr', shards: 1, retryBudgetMs, log: pino({ level: 'silent' }),
    send: (batch) => {
      batches.push(batch);
      return answer(batch) ?? new Promise<ShardReply>(() => undefined);
    },
  });
  return { hub, batches };
}

const ops = (batches: ShardBatch[]) => batches.flatMap((b) => b.ops.map((o) => (o.op === 'create' ? `create ${o.queue.id}` : o.op === 'delete' ? `delete ${o.queues.join(',')}` : o.op)));

describe('a queue made by a failed register, with queue shards', () => {
  it('is deleted in its shard, and nobody waits for its creation', async () => {
    let replies = 0;
    const { hub, batches } = hubWith(() => (replies++ === 0 ? null : Promise.resolve({ ok: true, gone: [] })));
    const q = hub.create(options(7));
    await Promise.resolve();
    // The creation is on its way and not answered; the register fails now.
    expect(hub.discard(q.id)).toBe(true);
    // The shard never answered the creation: ready would wait for it if it were still waited for.
    await hub.ready(q.id);
    expect(() => hub.get(q.id, 7)).toThrow(/Bad event queue ID/);
    expect(hub.queueCount).toBe(0);
    expect(hub.discard(q.id)).toBe(false);
    hub.close();
    expect(ops(batches)).toEqual([`create ${q.id}`]);
  });

  it('goes to its shard as a delete after the creation, in the same batch or the next', async () => {
    const { hub, batches } = hubWith(() => Promise.resolve({ ok: true, gone: [] }));
    const sameTurn = hub.create(options(7));
    hub.discard(sameTurn.id);
    await hub.flush(1000);
    const later = hub.create(options(8));
    await hub.ready(later.id);
    hub.discard(later.id);
    await hub.flush(1000);
    hub.close();
    expect(ops(batches)).toEqual([`create ${sameTurn.id}`, `delete ${sameTurn.id}`, `create ${later.id}`, `delete ${later.id}`]);
  });

  it('is dropped here, and its shard reset, when the shard does not take the creation', async () => {
    // It refuses the batch with the creation (no retry: a budget of 0), then takes what follows.
    let replies = 0;
    const { hub, batches } = hubWith(() => Promise.resolve(replies++ === 0 ? { ok: false, reason: 'not here' } : { ok: true, gone: [] }), 0);
    const q = hub.create(options(7));
    await expect(hub.ready(q.id)).rejects.toMatchObject({ code: 'SERVER_NOT_READY', status: 503 });
    expect(() => hub.get(q.id, 7)).toThrow(/Bad event queue ID/);
    expect(hub.discard(q.id)).toBe(false);
    await hub.flush(1000);
    hub.close();
    expect(ops(batches)).toEqual([`create ${q.id}`, 'reset']);
  });
});
