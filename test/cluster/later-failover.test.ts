// A scheduled message in a cluster whose worker dies: the worker that held the realm is
// killed with SIGKILL just before the due time. The delivery job (a BullMQ delayed job in
// Redis) is taken by another worker, which takes the realm up itself, with nobody using the
// realm meanwhile, under the realm's lease, and delivers the message once, with its events to
// the queue the recipient registered before the crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterClient, TestCluster, sleep } from '../helpers/cluster.js';
import { Placement } from '../../cluster/placement.js';
import { pickRealms } from './load.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const placement = new Placement(['w1', 'w2', 'w3']);
const [realmName] = pickRealms('lfo', 1, (n) => placement.owner(n) === 'w1');

let cluster: TestCluster;
let owner: ClusterClient;
let other: ClusterClient;

beforeAll(async () => {
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1', 'w2', 'w3'] });
  owner = await cluster.newRealm(realmName!);
  const created = await owner.post('/users', { email: `other@${realmName}.test`, password: 'other-password-1', full_name: 'Oscar Other' });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const key = await owner.post('/fetch_api_key', { username: `other@${realmName}.test`, password: 'other-password-1' });
  expect(key.status, JSON.stringify(key.body)).toBe(200);
  other = new ClusterClient(owner.port, realmName!, key.body.email as string, key.body.api_key as string, created.body.user_id as number);
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

async function withText(c: ClusterClient, text: string): Promise<Json[]> {
  const r = await c.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, apply_markdown: false });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.messages as Json[]).filter((m) => m.content === text);
}

describe('a scheduled message whose realm worker is killed', () => {
  it('is delivered once by the worker that takes the realm over', async () => {
    const reg = await other.post('/register', { event_types: ['message'], fetch_event_types: [] });
    expect(reg.status).toBe(200);
    expect((await cluster.holders()).get(realmName!)?.id).toBe('w1');

    const due = Math.ceil(Date.now() / 1000) + 2;
    const scheduled = await owner.post('/scheduled_messages', { type: 'direct', to: JSON.stringify([other.userId]), content: 'survives the crash', scheduled_delivery_timestamp: due });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    // Let the event queue copy reach Redis, then kill the holder just before the due time.
    await sleep(Math.max(0, due * 1000 - Date.now() - 500));
    await cluster.signal(cluster.worker('w1'), 'SIGKILL');

    // No client request reaches the realm: the delivery job itself takes the realm up on the
    // worker placement now gives it to.
    const deadline = Date.now() + 15_000;
    let holder: string | undefined;
    while (!holder && Date.now() < deadline) {
      holder = (await cluster.holders()).get(realmName!)?.id;
      if (!holder) await sleep(200);
    }
    expect(holder, 'a worker took the realm up for the delivery').toBe(new Placement(['w2', 'w3']).owner(realmName!));

    const arrived = Date.now() + 10_000;
    while ((await withText(other, 'survives the crash')).length === 0 && Date.now() < arrived) await sleep(200);
    await sleep(1000);
    expect(await withText(other, 'survives the crash')).toHaveLength(1);
    expect(await withText(owner, 'survives the crash')).toHaveLength(1);
    const list = await owner.get('/scheduled_messages');
    expect(list.body.scheduled_messages).toEqual([]);

    // The recipient's queue, registered on the dead worker, was restored with the realm and
    // got the message once.
    const poll = await other.get('/events', { queue_id: reg.body.queue_id, last_event_id: -1, dont_block: true });
    expect(poll.status, JSON.stringify(poll.body)).toBe(200);
    const messages = (poll.body.events as Json[]).filter((e) => e.type === 'message');
    expect(messages.map((e) => e.message.content)).toEqual(['survives the crash']);
  }, 60_000);
});
