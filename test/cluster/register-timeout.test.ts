// A POST /register the front gave up on (504 after REQUEST_TIMEOUT_MS) leaves no queue on the
// workers: the front cancels the request on the worker as it does when its client leaves, so
// a queue already made is deleted at once, and a register that had not begun yet (its realm
// still loading when the front gave up) makes none when it gets there. Queue shards
// (QUEUE_SHARDS=2) hold the queues on another worker than the realm's, as in
// register-cleanup.test.ts; a table lock the test holds keeps the register waiting past the
// front's timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterClient, TestCluster } from '../helpers/cluster.js';
import { until } from '../helpers/ownServer.js';
import { droppedQueueIds, leavableRegister } from '../helpers/registerCleanup.js';
import { lockTable } from '../helpers/tableLock.js';
import { Placement } from '../../cluster/placement.js';
import { shardName } from '../../cluster/queueShards.js';
import { pickRealms } from './load.js';
import type { Params } from '../helpers/client.js';

const TIMEOUT_MS = 2500;
const two = new Placement(['w1', 'w2']);
// Each realm's actor on w2, both of its queue shards on w1.
const [busy, cold] = pickRealms('rto', 2, (n) => two.owner(n) === 'w2' && two.owner(shardName(n, 0)) === 'w1' && two.owner(shardName(n, 1)) === 'w1');

let cluster: TestCluster;
let busyOwner: ClusterClient;
let coldOwner: ClusterClient;

beforeAll(async () => {
  // The front waits TIMEOUT_MS for a worker's answer; info logs name the queues dropped.
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1', 'w2'], env: { QUEUE_SHARDS: '2', LOG_LEVEL: 'info', REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) } });
  busyOwner = await cluster.newRealm(busy!);
  coldOwner = await cluster.newRealm(cold!);
  expect((await busyOwner.post('/register', { fetch_event_types: [] })).status).toBe(200);
  expect((await cluster.holders()).get(busy!)?.id).toBe('w2');
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

/** Queues the realm's shards hold, over every worker. */
async function shardQueues(realm: string): Promise<number> {
  const shards = new Set([shardName(realm, 0), shardName(realm, 1)]);
  let n = 0;
  for (const w of cluster.live()) {
    const held = ((await cluster.workerHealth(w)).queueShards as { shard: string; queues: number }[] | undefined) ?? [];
    for (const s of held) if (shards.has(s.shard)) n += s.queues;
  }
  return n;
}

const logs = () => cluster.workers.map((w) => w.output()).join('\n');
const dropped = () => cluster.workers.flatMap((w) => droppedQueueIds(w.output()));
const noneMade = () => logs().split('\n').filter((l) => l.includes('before its register made a queue')).length;
const register = (owner: ClusterClient, params: Params) =>
  leavableRegister({ port: owner.port, host: `${owner.subdomain}.localhost:${owner.port}`, email: owner.email, apiKey: owner.apiKey }, params);
const poll = (owner: ClusterClient, queueId: string) => owner.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
const timedOut = { status: 504, body: { result: 'error', code: 'REQUEST_TIMEOUT' } };

describe('a register the front stopped waiting for', () => {
  it('has its queue deleted when the state was still being built', async () => {
    const before = await shardQueues(busy!);
    const seen = dropped().length;
    const lock = await lockTable(cluster.databaseUrl, 'drafts');
    try {
      const pending = register(busyOwner, { fetch_event_types: ['drafts'] });
      await until(async () => (await lock.waiting()).length > 0, 'the register to wait for the drafts');
      await until(async () => (await shardQueues(busy!)) === before + 1, 'the shard to hold the new queue');
      // The lock is still held: only the front's timeout ends the wait.
      expect(await pending.reply).toMatchObject(timedOut);
      // Gone without the register's query ending.
      await until(async () => (await shardQueues(busy!)) === before, 'the shard to delete the queue');
      expect((await lock.waiting()).length).toBeGreaterThan(0);
    } finally {
      await lock.release();
    }
    const queueIds = dropped().slice(seen);
    expect(queueIds).toHaveLength(1);
    expect((await poll(busyOwner, queueIds[0]!)).body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: queueIds[0] });
    // The realm serves the next register as usual.
    const next = await busyOwner.post('/register', { fetch_event_types: [] });
    expect(next.status).toBe(200);
    await until(async () => (await shardQueues(busy!)) === before + 1, 'the shard to hold the next queue');
    expect((await poll(busyOwner, next.body.queue_id as string)).status).toBe(200);
  }, 30_000);

  it('makes no queue when its realm was still loading', async () => {
    // Nobody used the realm yet: the register loads it, and loading reads the playgrounds.
    expect((await cluster.holders()).has(cold!)).toBe(false);
    const seenNone = noneMade();
    const seenDropped = dropped().length;
    const lock = await lockTable(cluster.databaseUrl, 'realm_playgrounds');
    try {
      const pending = register(coldOwner, { fetch_event_types: [] });
      await until(async () => (await lock.waiting()).length > 0, 'the realm to wait for its playgrounds');
      expect(await pending.reply).toMatchObject(timedOut);
    } finally {
      await lock.release();
    }
    // The realm finishes loading and the register reaches it, to find its client gone.
    await until(async () => (await cluster.holders()).get(cold!)?.id === 'w2', 'the realm to be loaded');
    // It either gives up (logged) or, as it did before, makes a queue nobody will ever poll.
    await until(async () => noneMade() > seenNone || (await shardQueues(cold!)) > 0, 'the register to end');
    expect(await shardQueues(cold!)).toBe(0);
    expect(noneMade()).toBe(seenNone + 1);
    expect(dropped().length).toBe(seenDropped);
    // A register now is answered, and its queue is the realm's only one.
    const next = await coldOwner.post('/register', { fetch_event_types: [] });
    expect(next.status).toBe(200);
    await until(async () => (await shardQueues(cold!)) === 1, 'the shard to hold the new queue');
    expect((await poll(coldOwner, next.body.queue_id as string)).status).toBe(200);
  }, 30_000);
});
