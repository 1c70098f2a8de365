// Planned moves: a worker joins (some realms move to it) and a worker leaves on SIGTERM (all of
// its realms move), while clients send messages and long-poll their event queues. Clients
// notice nothing: no error, no BAD_EVENT_QUEUE_ID, no event missing, queue ids keep working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, type ClusterClient } from '../helpers/cluster.js';
import { Placement } from '../../cluster/placement.js';
import { Listener, Writer, pickRealms, sleep } from './load.js';

const two = new Placement(['w1', 'w2']);
const three = new Placement(['w1', 'w2', 'w3']);
const afterLeave = new Placement(['w2', 'w3']);
// Moves to w3 when it joins (from w1 and from w2), stays on w1 until w1 leaves, stays on w2.
const joining = [
  ...pickRealms('ja', 2, (n) => two.owner(n) === 'w1' && three.owner(n) === 'w3'),
  ...pickRealms('jb', 1, (n) => two.owner(n) === 'w2' && three.owner(n) === 'w3'),
];
const leaving = pickRealms('lv', 2, (n) => three.owner(n) === 'w1');
const staying = pickRealms('st', 1, (n) => two.owner(n) === 'w2' && three.owner(n) === 'w2');
// No sends here: its long-poll stays parked while the realm moves.
const quiet = pickRealms('qu', 1, (n) => three.owner(n) === 'w1')[0]!;

let cluster: TestCluster;
let owners: ClusterClient[];
let quietOwner: ClusterClient;

beforeAll(async () => {
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1', 'w2'] });
  owners = await Promise.all([...joining, ...leaving, ...staying].map((name) => cluster.newRealm(name)));
  quietOwner = await cluster.newRealm(quiet);
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('planned hand-off of realms between workers', () => {
  it('moves realms with their event queues when a worker joins and when one leaves', async () => {
    const writers = owners.map((o) => new Writer(o, 40));
    const listeners = owners.flatMap((o) => [new Listener(o), new Listener(o)]);
    const parked = new Listener(quietOwner);
    await Promise.all([...listeners, parked].map((l) => l.register()));
    [...listeners, parked].forEach((l) => l.start());
    writers.forEach((w) => w.start());
    await sleep(1500);
    const before = await cluster.holders();
    for (const name of [...joining, ...leaving, ...staying]) expect(before.get(name)?.id).toBe(two.owner(name));

    // A worker joins: the realms placed on it move there.
    await cluster.addWorker('w3');
    await sleep(1500);
    const afterJoin = await cluster.holders();
    for (const name of joining) expect(afterJoin.get(name)?.id).toBe('w3');
    for (const name of leaving) expect(afterJoin.get(name)?.id).toBe('w1');
    expect(afterJoin.get(staying[0]!)?.id).toBe('w2');

    // A worker leaves on purpose: all its realms move, then it exits cleanly.
    expect(await cluster.signal(cluster.worker('w1'), 'SIGTERM')).toBe(0);
    await cluster.waitForWorkers(2);
    await sleep(1500);
    const afterTerm = await cluster.holders();
    for (const name of leaving) expect(afterTerm.get(name)?.id).toBe(afterLeave.owner(name));

    await Promise.all(writers.map((w) => w.stop()));
    for (const [i, w] of writers.entries()) {
      expect(w.failed, owners[i]!.subdomain).toEqual([]);
      expect(w.acked.length).toBeGreaterThan(20);
    }
    await Promise.all(listeners.map((l) => l.finish(writers[Math.floor(listeners.indexOf(l) / 2)]!.acked.map((a) => a.id))));
    for (const [i, l] of listeners.entries()) {
      const acked = writers[Math.floor(i / 2)]!.acked.map((a) => a.id);
      expect({ realm: l.client.subdomain, badQueue: l.badQueue, gaps: l.gaps, errors: l.errors }).toEqual({
        realm: l.client.subdomain, badQueue: 0, gaps: [], errors: [],
      });
      expect(l.messageIds).toEqual(acked);
    }

    // The poll parked on the leaving worker was re-sent to the new owner and keeps working.
    expect((await cluster.holders()).get(quiet)?.id).toBe(afterLeave.owner(quiet));
    const sent = await quietOwner.post('/messages', { type: 'direct', to: [quietOwner.userId], content: 'after the move' });
    expect(sent.status).toBe(200);
    await parked.finish([sent.body.id as number]);
    expect({ badQueue: parked.badQueue, gaps: parked.gaps, errors: parked.errors, ids: parked.messageIds }).toEqual({
      badQueue: 0, gaps: [], errors: [], ids: [sent.body.id],
    });

    // Each move took the realm's lease at a higher epoch; the new holders report them.
    const w3Metrics = await cluster.workerMetrics(cluster.worker('w3'));
    for (const name of joining) expect(w3Metrics).toMatch(new RegExp(`chat_cluster_realm_held\\{realm="${name}",worker="w3"\\} [2-9]`));
    const health = await cluster.frontHealth();
    expect((health.workers as { id: string }[]).map((w) => w.id).sort()).toEqual(['w2', 'w3']);
  }, 60_000);
});
