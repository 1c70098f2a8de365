// POST /streams/{id}/delete_topic when its time budget runs out (Zulip feature level 211): the
// server deletes in batches, each committed on its own, and answers `complete: false` once the
// budget is spent with messages left; what it deleted is gone and announced, and repeating the
// request finishes the topic with `complete: true`. A server of the test's own deletes two
// messages per batch with a budget of 1 ms, so a topic of 40 messages cannot be deleted by one
// request. Every polled event is checked against the event catalog by the test client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser } from '../helpers/client.js';
import { expectResponse } from '../helpers/responses/index.js';
import { OwnClient, startOwnServer, type OwnServer } from '../helpers/ownServer.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const BATCH = 2;
const COUNT = 40;

let server: OwnServer;
let owner: OwnClient;
let bob: OwnClient;
let channelId: number;
let doomed: number[] = [];
let kept: number;

const ok = (r: { status: number; body: Obj }) => {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
const expectError = (r: { status: number; body: Obj }, msg: string, code = 'BAD_REQUEST') => {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body).toMatchObject({ result: 'error', code, msg });
};
const send = async (topic: string, content: string) =>
  ok(await bob.post('/messages', { type: 'stream', to: 'budget', topic, content })).id as number;
const deleteTopic = async (topic: string) =>
  expectResponse('POST /streams/{id}/delete_topic', await owner.post(`/streams/${channelId}/delete_topic`, { topic_name: topic })) as Obj;
/** Ids of the topic's messages still there, oldest first. */
async function left(topic: string): Promise<number[]> {
  const narrow = JSON.stringify([{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: topic }]);
  const body = ok(await owner.get('/messages', { anchor: 'newest', num_before: 200, num_after: 0, narrow }));
  return (body.messages as Obj[]).map((m) => m.id as number);
}

interface Queue { client: OwnClient; id: string; last: number }
async function openQueue(client: OwnClient, params: Obj): Promise<Queue> {
  const body = ok(await client.post('/register', { event_types: JSON.stringify(['delete_message']), ...params }));
  return { client, id: body.queue_id as string, last: body.last_event_id as number };
}
async function drain(q: Queue): Promise<Obj[]> {
  const body = ok(await q.client.get('/events', { queue_id: q.id, last_event_id: q.last, dont_block: true }));
  const events = (body.events as Obj[]).filter((e) => e.type !== 'heartbeat');
  if (body.events.length) q.last = body.events.at(-1).id;
  return events;
}

beforeAll(async () => {
  server = await startOwnServer({ DELETE_TOPIC_BATCH_SIZE: String(BATCH), DELETE_TOPIC_TIME_BUDGET_MS: '1' }, false);
  const realm = await newRealm('dtbudget');
  owner = new OwnClient(server.port, realm.owner);
  bob = new OwnClient(server.port, await newUser(realm.subdomain, 'Bob Budget'));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'budget' }]), principals: JSON.stringify([owner.userId, bob.userId]) }));
  channelId = ok(await owner.get('/get_stream_id', { stream: 'budget' })).stream_id;
  doomed = [];
  for (let i = 0; i < COUNT; i++) doomed.push(await send('huge', `message ${i}`));
  kept = await send('small', 'stays');
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('POST /streams/{id}/delete_topic with a time budget', () => {
  it('refuses bad input and non-administrators, deleting nothing', async () => {
    expectError(await bob.post(`/streams/${channelId}/delete_topic`, { topic_name: 'huge' }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    expectError(await owner.post('/streams/999999/delete_topic', { topic_name: 'huge' }), 'Invalid channel ID');
    expectError(await owner.post(`/streams/${channelId}/delete_topic`, {}), "Missing 'topic_name' argument", 'REQUEST_VARIABLE_MISSING');
    expect(await left('huge')).toEqual(doomed);
  });

  it('answers complete: false when the budget runs out, having deleted whole batches, newest first', async () => {
    const bulk = await openQueue(bob, { client_capabilities: JSON.stringify({ bulk_message_deletion: true }) });
    const legacy = await openQueue(bob, {});
    expect(await deleteTopic('huge')).toEqual({ result: 'success', msg: '', complete: false });

    const remaining = await left('huge');
    const gone = doomed.length - remaining.length;
    // At least one batch, never all of them, and only whole batches.
    expect(gone).toBeGreaterThanOrEqual(BATCH);
    expect(gone).toBeLessThan(COUNT);
    expect(gone % BATCH).toBe(0);
    expect(remaining).toEqual(doomed.slice(0, remaining.length));
    const goneIds = doomed.slice(remaining.length);
    for (const id of [goneIds[0]!, goneIds.at(-1)!]) expect((await bob.get(`/messages/${id}`)).status).toBe(400);

    // A client with bulk_message_deletion gets one event per batch; another one per message.
    const bulkEvents = await drain(bulk);
    expect(bulkEvents.every((e) => e.type === 'delete_message' && e.message_type === 'stream' && e.stream_id === channelId && e.topic === 'huge')).toBe(true);
    expect(bulkEvents.every((e) => e.message_ids.length <= BATCH)).toBe(true);
    expect(bulkEvents.flatMap((e) => e.message_ids).sort((a: number, b: number) => a - b)).toEqual(goneIds);
    const legacyEvents = await drain(legacy);
    expect(legacyEvents.map((e) => e.message_id).sort((a: number, b: number) => a - b)).toEqual(goneIds);

    // The topic is still listed while it has messages.
    const topics = ok(await bob.get(`/users/me/${channelId}/topics`)).topics.map((t: { name: string }) => t.name);
    expect(topics).toContain('huge');
  });

  it('finishes with complete: true when repeated, leaving other topics alone', async () => {
    const bulk = await openQueue(bob, { client_capabilities: JSON.stringify({ bulk_message_deletion: true }) });
    const before = await left('huge');
    const answers: boolean[] = [];
    // Each request gets at least one batch further.
    for (let i = 0; i < COUNT && answers.at(-1) !== true; i++) answers.push((await deleteTopic('huge')).complete as boolean);
    expect(answers.at(-1)).toBe(true);
    expect(answers.slice(0, -1).every((c) => c === false)).toBe(true);
    expect(await left('huge')).toEqual([]);
    const deleted = (await drain(bulk)).flatMap((e) => e.message_ids).sort((a: number, b: number) => a - b);
    expect(deleted).toEqual(before);
    expect(await left('small')).toEqual([kept]);
    const topics = ok(await bob.get(`/users/me/${channelId}/topics`)).topics.map((t: { name: string }) => t.name);
    expect(topics).not.toContain('huge');
    // Nothing left: a further request is complete at once.
    expect(await deleteTopic('huge')).toEqual({ result: 'success', msg: '', complete: true });
  });
});
