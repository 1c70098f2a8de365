// As root (unless TEST_NETNS=0), the cluster tests run every front and worker on a host
// of its own (a network namespace from scripts/netns-cluster.sh): a realm's requests then
// cross real links, from the front's host to the worker's host and on to Postgres and Redis.
// Otherwise they run on one host, and the helper says so on stderr.
import { readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, netnsWanted, type ClusterClient } from '../helpers/cluster.js';

let cluster: TestCluster;
let owner: ClusterClient;

beforeAll(async () => {
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1', 'w2'] });
  owner = await cluster.newRealm('hosts');
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

const netns = (pid: number) => readlinkSync(`/proc/${pid}/ns/net`);

describe('hosts of the test cluster', () => {
  it('serve a realm across the links between them: register, send, receive', async () => {
    const reg = await owner.post('/register', { event_types: JSON.stringify(['message']) });
    expect(reg.status).toBe(200);
    expect((await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'links' }]) })).status).toBe(200);
    const sent = await owner.post('/messages', { type: 'channel', to: 'links', topic: 'hosts', content: 'over the links' });
    expect(sent.status).toBe(200);
    const events = await owner.get('/events', { queue_id: reg.body.queue_id as string, last_event_id: -1 });
    expect(events.body.events).toEqual([expect.objectContaining({ type: 'message', message: expect.objectContaining({ id: sent.body.id, content: 'over the links' }) })]);
  });

  it.runIf(netnsWanted())('put every front and worker in a network namespace of its own, each with its own address', () => {
    if (!cluster.network) throw new Error('running as root, but the network namespaces could not be made (see the stderr note)');
    const procs = [...cluster.fronts, ...cluster.workers];
    const spaces = procs.map((p) => netns(p.proc.pid!));
    expect(new Set([...spaces, netns(process.pid)]).size).toBe(procs.length + 1);
    const addresses = procs.map((p) => p.address);
    expect(new Set(addresses).size).toBe(procs.length);
    for (const a of addresses) expect(a).toMatch(new RegExp(`^${cluster.network.subnet.replace(/\./g, '\\.')}\\.\\d+$`));
  });
});
