// Queue shards (QUEUE_SHARDS=2) and a POST /register that fails after its queue was made: the
// realm's worker has the queue's shard, on another worker, delete it as other deletes do, so
// the shard's queue count is back where it was and the queue's id answers BAD_EVENT_QUEUE_ID.
// The failure is a section's query cancelled while it waits for a table lock the test holds,
// or the client leaving before the answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterClient, TestCluster } from '../helpers/cluster.js';
import { until } from '../helpers/ownServer.js';
import { droppedQueueIds, leavableRegister } from '../helpers/registerCleanup.js';
import { lockTable } from '../helpers/tableLock.js';
import { Placement } from '../../cluster/placement.js';
import { shardName } from '../../cluster/queueShards.js';
import { pickRealms } from './load.js';
import type { Params } from '../helpers/client.js';

const two = new Placement(['w1', 'w2']);
// The realm's actor on w2, both of its queue shards on w1.
const realm = pickRealms('rgc', 1, (n) => two.owner(n) === 'w2' && two.owner(shardName(n, 0)) === 'w1' && two.owner(shardName(n, 1)) === 'w1')[0]!;
const shards = new Set([shardName(realm, 0), shardName(realm, 1)]);

let cluster: TestCluster;
let owner: ClusterClient;

beforeAll(async () => {
  // Info logs name the queues a failed register dropped.
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1', 'w2'], env: { QUEUE_SHARDS: '2', LOG_LEVEL: 'info' } });
  owner = await cluster.newRealm(realm);
  expect((await owner.post('/register', { fetch_event_types: [] })).status).toBe(200);
  expect((await cluster.holders()).get(realm)?.id).toBe('w2');
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

/** Queues the realm's shards hold, over every worker. */
async function shardQueues(): Promise<number> {
  let n = 0;
  for (const w of cluster.live()) {
    const held = ((await cluster.workerHealth(w)).queueShards as { shard: string; queues: number }[] | undefined) ?? [];
    for (const s of held) if (shards.has(s.shard)) n += s.queues;
  }
  return n;
}

const dropped = () => cluster.workers.flatMap((w) => droppedQueueIds(w.output()));
const register = (params: Params) =>
  leavableRegister({ port: owner.port, host: `${realm}.localhost:${owner.port}`, email: owner.email, apiKey: owner.apiKey }, params);
const poll = (queueId: string) => owner.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });

describe('a register that fails after making its queue, with queue shards', () => {
  it('has the shard delete the queue when a section of the initial state fails', async () => {
    const before = await shardQueues();
    const seen = dropped().length;
    const lock = await lockTable(cluster.databaseUrl, 'drafts');
    let reply;
    try {
      const pending = register({ fetch_event_types: ['drafts'] });
      await until(async () => (await lock.waiting()).length > 0, 'the register to wait for the drafts');
      // The shard took the new queue while the state is built.
      await until(async () => (await shardQueues()) === before + 1, 'the shard to hold the new queue');
      await lock.cancelWaiting();
      reply = await pending.reply;
    } finally {
      await lock.release();
    }
    // The error the client always got for a failed query.
    expect(reply).toMatchObject({ status: 500, body: { result: 'error', code: 'INTERNAL_SERVER_ERROR' } });
    await until(async () => (await shardQueues()) === before, 'the shard to delete the queue');
    const queueIds = dropped().slice(seen);
    expect(queueIds).toHaveLength(1);
    expect((await poll(queueIds[0]!)).body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: queueIds[0] });
  }, 30_000);

  it('has the shard delete the queue when the client leaves before the answer', async () => {
    const before = await shardQueues();
    const seen = dropped().length;
    const lock = await lockTable(cluster.databaseUrl, 'drafts');
    try {
      const pending = register({ fetch_event_types: ['drafts'] });
      await until(async () => (await lock.waiting()).length > 0, 'the register to wait for the drafts');
      await until(async () => (await shardQueues()) === before + 1, 'the shard to hold the new queue');
      pending.leave();
      expect(await pending.reply).toBe('left');
      // Gone at once, while the register still waits for the lock.
      await until(async () => (await shardQueues()) === before, 'the shard to delete the queue');
    } finally {
      await lock.release();
    }
    // The abandoned register's turn ended: the next one is served, and only its queue is new.
    const next = await owner.post('/register', { fetch_event_types: [] });
    expect(next.status).toBe(200);
    await until(async () => (await shardQueues()) === before + 1, 'the shard to hold the next queue');
    const queueIds = dropped().slice(seen);
    expect(queueIds).toHaveLength(1);
    expect((await poll(queueIds[0]!)).body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: queueIds[0] });
    expect((await poll(next.body.queue_id as string)).status).toBe(200);
  }, 30_000);
});
