// Queue shards (QUEUE_SHARDS=2): one realm's event queues and parked polls live on two
// workers, placed by user; the realm's actor feeds both. Clients see what they see with one
// process: every message of a channel in order, their own queue only, and across a planned
// move of a shard no gap and no BAD_EVENT_QUEUE_ID; after kill -9 of a shard's worker its
// clients get BAD_EVENT_QUEUE_ID, register again and miss nothing sent after that.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterClient, TestCluster, httpRequest } from '../helpers/cluster.js';
import { Placement } from '../../cluster/placement.js';
import { shardName, shardOfUser } from '../../cluster/queueShards.js';
import { Listener, Writer, pickRealms, sleep } from './load.js';
import { until } from '../helpers/ownServer.js';

const two = new Placement(['w1', 'w2']);
const three = new Placement(['w1', 'w2', 'w3']);
const last = new Placement(['w2', 'w3', 'w4']);
// Shard 0 and shard 1 on different workers at every step; the realm's actor on w2 while w1 is there.
const realm = pickRealms('shq', 1, (n) => {
  const [a, b] = [shardName(n, 0), shardName(n, 1)];
  return two.owner(a) !== two.owner(b) && three.owner(a) !== three.owner(b) && last.owner(a) !== last.owner(b) && two.owner(n) === 'w2' && three.owner(n) === 'w2';
})[0]!;

let cluster: TestCluster;
let owner: ClusterClient;
const members: ClusterClient[] = [];

async function addMember(i: number): Promise<ClusterClient> {
  const email = `member${i}@${realm}.test`;
  const created = await owner.post('/users', { email, password: 'member-password-1', full_name: `Member ${i}` });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const key = await owner.post('/fetch_api_key', { username: email, password: 'member-password-1' });
  expect(key.status, JSON.stringify(key.body)).toBe(200);
  return new ClusterClient(owner.port, realm, key.body.email as string, key.body.api_key as string, created.body.user_id as number);
}

const everyone = () => [owner, ...members];
const toChannel = (content: string) => ({ type: 'stream', to: 'everyone', topic: 'load', content });

beforeAll(async () => {
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1', 'w2'], env: { QUEUE_SHARDS: '2' } });
  owner = await cluster.newRealm(realm);
  for (let i = 0; i < 6; i++) members.push(await addMember(i));
  const sub = await owner.post('/users/me/subscriptions', {
    subscriptions: JSON.stringify([{ name: 'everyone' }]),
    principals: JSON.stringify(everyone().map((c) => c.userId)),
  });
  expect(sub.status, JSON.stringify(sub.body)).toBe(200);
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

/** Every user long-polls a queue of their own while the owner sends on the channel. */
async function listenWhileSending(): Promise<{ listeners: Listener[]; writer: Writer }> {
  const listeners = everyone().map((c) => new Listener(c));
  await Promise.all(listeners.map((l) => l.register()));
  listeners.forEach((l) => l.start());
  const writer = new Writer(owner, 30, toChannel);
  writer.start();
  await sleep(1000);
  return { listeners, writer };
}

/** Which worker holds each queue shard now (from the workers' /health). */
async function shardHolders(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const w of cluster.live()) {
    const health = await cluster.workerHealth(w);
    for (const s of (health.queueShards as { shard: string }[] | undefined) ?? []) out.set(s.shard, w.id);
  }
  return out;
}

/** Sends on the channel, then checks every listener got exactly what was acknowledged. */
async function expectAllDelivered(listeners: Listener[], writer: Writer, allowReregister: boolean): Promise<void> {
  await writer.stop();
  expect(writer.failed).toEqual([]);
  const acked = writer.acked.map((a) => a.id);
  expect(acked.length).toBeGreaterThan(10);
  await Promise.all(listeners.map((l) => l.finish(acked)));
  for (const l of listeners) {
    expect({ user: l.client.userId, gaps: l.gaps, errors: l.errors }).toEqual({ user: l.client.userId, gaps: [], errors: [] });
    if (!allowReregister || l.badQueue === 0) {
      expect(l.badQueue).toBe(0);
      expect(l.messageIds).toEqual(acked);
    } else {
      // After registering again, the new queue has every message sent after it was made.
      const since = writer.acked.filter((a) => a.sentAt > l.registeredAt).map((a) => a.id);
      expect(since.length).toBeGreaterThan(0);
      expect(l.messageIds.slice(-since.length)).toEqual(since);
    }
  }
}

describe('queue shards', () => {
  it('spread one realm’s queues over two workers, each poll answered by its shard', async () => {
    const shardsUsed = new Set(everyone().map((c) => shardOfUser(c.userId, 2)));
    expect(shardsUsed).toEqual(new Set([0, 1]));
    const listeners = everyone().map((c) => new Listener(c));
    await Promise.all(listeners.map((l) => l.register()));
    for (const l of listeners) expect(l.queueId).toMatch(new RegExp(`^s${shardOfUser(l.client.userId, 2)}-`));

    const holders = await shardHolders();
    expect(holders.get(shardName(realm, 0))).toBe(two.owner(shardName(realm, 0)));
    expect(holders.get(shardName(realm, 1))).toBe(two.owner(shardName(realm, 1)));
    expect((await cluster.holders()).get(realm)?.id).toBe('w2');

    listeners.forEach((l) => l.start());
    const writer = new Writer(owner, 20, toChannel);
    writer.start();
    await sleep(1500);
    await expectAllDelivered(listeners, writer, false);
  }, 60_000);

  it('answer only the queue’s own user, and delete a queue on request', async () => {
    const mine = await members[0]!.post('/register', { event_types: JSON.stringify(['message']) });
    expect(mine.status).toBe(200);
    const queueId = mine.body.queue_id as string;
    const stranger = members.find((m) => shardOfUser(m.userId, 2) === shardOfUser(members[0]!.userId, 2) && m !== members[0]) ?? members[1]!;
    const theirs = await stranger.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    expect([theirs.status, theirs.body.code]).toEqual([400, 'BAD_EVENT_QUEUE_ID']);
    const anonymous = await httpRequest(owner.port, {
      method: 'GET', path: `/api/v1/events?queue_id=${queueId}&last_event_id=-1&dont_block=true`, host: `${realm}.localhost:${owner.port}`,
    });
    expect(anonymous.status).toBe(401);
    const badArg = await members[0]!.get('/events', { queue_id: queueId, last_event_id: 'x' });
    expect([badArg.status, badArg.body.code]).toEqual([400, 'BAD_REQUEST']);

    const own = await members[0]!.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    expect([own.status, own.body.events, own.body.queue_id]).toEqual([200, [], queueId]);
    // Once the owner's credential was proven for the queue, others are still refused.
    const again = await members[0]!.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    expect(again.status).toBe(200);
    const theirsAgain = await stranger.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    expect([theirsAgain.status, theirsAgain.body.code]).toEqual([400, 'BAD_EVENT_QUEUE_ID']);
    const deleted = await members[0]!.request('DELETE', '/events', { queue_id: queueId });
    expect(deleted.status).toBe(200);
    const after = await members[0]!.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    expect([after.status, after.body.code]).toEqual([400, 'BAD_EVENT_QUEUE_ID']);
  }, 30_000);

  it('serve a web session’s queue: polls by cookie, Django’s CSRF check on delete, and logout ends it', async () => {
    const member = members[1]!;
    const host = `${realm}.localhost:${owner.port}`;
    const web = (method: string, path: string, headers: Record<string, string>, body?: Record<string, string>) =>
      httpRequest(owner.port, {
        method, path: `/json${path}`, host,
        headers: { ...headers, ...(body ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
        body: body ? new URLSearchParams(body).toString() : undefined,
      });
    const login = await web('POST', '/login', { Origin: `http://${host}` }, { username: member.email, password: 'member-password-1' });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const set = ([] as string[]).concat(login.headers['set-cookie'] ?? []);
    const value = (name: string) => set.find((c) => c.startsWith(`${name}=`))!.split(';')[0]!.slice(name.length + 1);
    const cookie = `sessionid=${value('sessionid')}; csrftoken=${value('csrftoken')}`;
    const csrf = value('csrftoken');
    const register = async () => {
      const r = await web('POST', '/register', { Cookie: cookie, 'X-CSRFToken': csrf }, { event_types: '["message"]', fetch_event_types: '[]' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.queue_id as string;
    };
    const poll = (queueId: string, headers: Record<string, string> = { Cookie: cookie }) =>
      web('GET', `/events?queue_id=${queueId}&last_event_id=-1&dont_block=true`, headers);

    const q1 = await register();
    expect(q1).toMatch(new RegExp(`^s${shardOfUser(member.userId, 2)}-`));
    expect((await poll(q1)).status).toBe(200);
    const noSession = await poll(q1, {});
    expect([noSession.status, noSession.headers['www-authenticate']]).toEqual([401, 'Session realm="zulip"']);
    const noToken = await web('DELETE', `/events?queue_id=${q1}`, { Cookie: cookie });
    expect([noToken.status, noToken.body.code]).toEqual([403, 'CSRF_FAILED']);
    const wrongToken = await web('DELETE', `/events?queue_id=${q1}`, { Cookie: cookie, 'X-CSRFToken': 'x'.repeat(32) });
    expect([wrongToken.status, wrongToken.body.code]).toEqual([403, 'CSRF_FAILED']);
    expect((await poll(q1)).status).toBe(200);
    expect((await web('DELETE', `/events?queue_id=${q1}`, { Cookie: cookie, 'X-CSRFToken': csrf })).status).toBe(200);
    expect((await poll(q1)).body.code).toBe('BAD_EVENT_QUEUE_ID');

    const q2 = await register();
    expect((await web('POST', '/logout', { Cookie: cookie, 'X-CSRFToken': csrf }, {})).status).toBe(200);
    // The shard cannot look sessions up: the logout itself ended the session's queue there.
    await until(async () => (await member.get('/events', { queue_id: q2, last_event_id: -1, dont_block: true })).body.code === 'BAD_EVENT_QUEUE_ID', 'the queue to end');
    const after = await poll(q2);
    expect(after.status).toBe(400);
  }, 30_000);

  it('move with their queues when a worker joins and when one leaves on SIGTERM', async () => {
    const { listeners, writer } = await listenWhileSending();

    await cluster.addWorker('w3');
    await sleep(1500);
    const joined = await shardHolders();
    for (const k of [0, 1]) expect(joined.get(shardName(realm, k))).toBe(three.owner(shardName(realm, k)));

    // w1 leaves; whatever it held (a shard, maybe) moves to w2 or w3.
    expect(await cluster.signal(cluster.worker('w1'), 'SIGTERM')).toBe(0);
    await cluster.waitForWorkers(2);
    await sleep(1500);
    const left = await shardHolders();
    const afterLeave = new Placement(['w2', 'w3']);
    for (const k of [0, 1]) expect(left.get(shardName(realm, k))).toBe(afterLeave.owner(shardName(realm, k)));
    await expectAllDelivered(listeners, writer, false);
  }, 90_000);

  it('recover from kill -9 of a shard’s worker: its clients register again and miss nothing sent since', async () => {
    await cluster.addWorker('w4');
    await sleep(1500);
    const { listeners, writer } = await listenWhileSending();

    const holders = await shardHolders();
    const realmHolder = (await cluster.holders()).get(realm)!.id;
    const victimId = [holders.get(shardName(realm, 0)), holders.get(shardName(realm, 1))].find((id) => id && id !== realmHolder)!;
    expect(victimId).toBeTruthy();
    const onVictim = listeners.filter((l) => holders.get(shardName(realm, shardOfUser(l.client.userId, 2))) === victimId);
    expect(onVictim.length).toBeGreaterThan(0);
    await cluster.signal(cluster.worker(victimId), 'SIGKILL');
    // Its clients learn their queues are gone once its lease has run out, and register again.
    await until(() => onVictim.every((l) => l.badQueue > 0), 'every client of the lost shard to register again', 20_000);
    await sleep(1500);
    await expectAllDelivered(listeners, writer, true);
    // Every acknowledged message is there for everyone.
    const history = await members[0]!.get('/messages', { anchor: 'newest', num_before: 1000, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'everyone' }]) });
    const ids = new Set((history.body.messages as { id: number }[]).map((m) => m.id));
    for (const a of writer.acked) expect(ids.has(a.id)).toBe(true);
  }, 90_000);
});
