// Redis going away under load: every Redis connection of the cluster is killed (CLIENT KILL,
// only this cluster's connections, found by their names) while clients send and long-poll.
// Serving goes on (leases live in Postgres), connections come back, and membership changes
// made afterwards (a worker joins, one leaves) still move realms without clients noticing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, type ClusterClient } from '../helpers/cluster.js';
import { Placement } from '../../cluster/placement.js';
import { Listener, Writer, pickRealms, sleep } from './load.js';

const two = new Placement(['w1', 'w2']);
const three = new Placement(['w1', 'w2', 'w3']);
const names = [
  ...pickRealms('ra', 1, (n) => two.owner(n) === 'w1' && three.owner(n) === 'w3'),
  ...pickRealms('rb', 1, (n) => two.owner(n) === 'w1' && three.owner(n) === 'w1'),
  ...pickRealms('rc', 2, (n) => two.owner(n) === 'w2' && three.owner(n) === 'w2'),
];

let cluster: TestCluster;
let owners: ClusterClient[];

beforeAll(async () => {
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1', 'w2'] });
  owners = await Promise.all(names.map((n) => cluster.newRealm(n)));
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

async function killRedisConnections(): Promise<number> {
  const ids = await cluster.redisClientIds();
  for (const id of ids) await cluster.redis.client('KILL', 'ID', id);
  return ids.length;
}

describe('Redis connections lost', () => {
  it('keeps serving, reconnects, and still moves realms afterwards', async () => {
    const writers = owners.map((o) => new Writer(o, 50));
    const listeners = owners.map((o) => new Listener(o));
    await Promise.all(listeners.map((l) => l.register()));
    listeners.forEach((l) => l.start());
    writers.forEach((w) => w.start());
    await sleep(1000);

    // Two workers and a front, each with (at least) a command and a subscriber connection.
    expect(await killRedisConnections()).toBeGreaterThanOrEqual(6);
    await sleep(700);
    expect(await killRedisConnections()).toBeGreaterThan(0);
    await sleep(1500);
    expect((await cluster.redisClientIds()).length).toBeGreaterThanOrEqual(6);

    // Membership still works: a joining worker is seen and takes its realm over.
    await cluster.addWorker('w3');
    await sleep(1500);
    expect((await cluster.holders()).get(names[0]!)?.id).toBe('w3');

    // And a leaving one, right after the front lost its connections again.
    await killRedisConnections();
    expect(await cluster.signal(cluster.worker('w1'), 'SIGTERM')).toBe(0);
    await cluster.waitForWorkers(2);
    await sleep(1000);
    expect((await cluster.holders()).get(names[1]!)?.id).toBe(new Placement(['w2', 'w3']).owner(names[1]!));

    await Promise.all(writers.map((w) => w.stop()));
    for (const w of writers) {
      expect(w.failed, w.client.subdomain).toEqual([]);
      expect(w.acked.length).toBeGreaterThan(5);
    }
    for (const [i, l] of listeners.entries()) {
      const acked = writers[i]!.acked.map((a) => a.id);
      await l.finish(acked);
      expect({ badQueue: l.badQueue, gaps: l.gaps, errors: l.errors }).toEqual({ badQueue: 0, gaps: [], errors: [] });
      expect(l.messageIds).toEqual(acked);
    }
  }, 60_000);
});
