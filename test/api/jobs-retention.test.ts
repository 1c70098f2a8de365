// Message retention end to end: a server of our own sweeping every second (in-process jobs,
// then BullMQ). Messages older than their channel's retention period, or the organization's
// for channels that follow it and for direct messages, disappear from history and topics, and
// their readers get delete_message events; "unlimited" keeps them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser } from '../helpers/client.js';
import { closeTestDb, testDb } from '../helpers/db.js';
import { OwnClient, startOwnServer, until, type OwnServer } from '../helpers/ownServer.js';

/** Moves messages' send time back, as if they were sent `days` ago. */
async function age(ids: number[], days: number): Promise<void> {
  const rows = await testDb()`
    UPDATE messages SET date_sent = now() - make_interval(days => ${days}) WHERE id = ANY(${ids}::int8[]) RETURNING id`;
  expect(rows).toHaveLength(ids.length);
}

afterAll(async () => {
  await closeTestDb();
});

describe.each([
  { mode: 'in-process jobs', redis: false },
  { mode: 'BullMQ jobs', redis: true },
])('message retention with $mode', ({ redis }) => {
  let server: OwnServer;
  let owner: OwnClient;
  let ron: OwnClient;
  const ids: Record<string, number> = {};
  const streamIds: Record<string, number> = {};
  let queueId: string;

  async function send(params: Record<string, unknown>): Promise<number> {
    return (await owner.ok('POST', '/messages', params)).id as number;
  }

  async function visibleIds(): Promise<number[]> {
    const body = await ron.ok('GET', '/messages', { anchor: 'newest', num_before: 100, num_after: 0 });
    return (body.messages as Array<{ id: number }>).map((m) => m.id);
  }

  async function deleteEvents(): Promise<Array<Record<string, any>>> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const body = await ron.ok('GET', '/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
    return (body.events as Array<Record<string, any>>).filter((e) => e.type === 'delete_message'); // eslint-disable-line @typescript-eslint/no-explicit-any
  }

  beforeAll(async () => {
    server = await startOwnServer({ RETENTION_INTERVAL_SECONDS: '1' }, redis);
    const realm = await newRealm('keep');
    owner = new OwnClient(server.port, realm.owner);
    ron = new OwnClient(server.port, await newUser(realm.subdomain, 'Ron Reader'));
    const channels: Array<[string, unknown]> = [['short-lived', 1], ['follows-realm', 'realm_default'], ['forever', 'unlimited']];
    for (const [name, days] of channels) {
      await owner.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name }], principals: [owner.userId, ron.userId], message_retention_days: days });
      streamIds[name] = (await owner.ok('GET', '/get_stream_id', { stream: name })).stream_id as number;
    }
    ids.shortOld = await send({ type: 'stream', to: 'short-lived', topic: 'old news', content: 'from the day before yesterday' });
    ids.shortFresh = await send({ type: 'stream', to: 'short-lived', topic: 'today', content: 'just now' });
    ids.shortOldInLiveTopic = await send({ type: 'stream', to: 'short-lived', topic: 'today', content: 'old, in a topic that goes on' });
    ids.realmOld = await send({ type: 'stream', to: 'follows-realm', topic: 'archive', content: 'old, realm policy' });
    ids.foreverOld = await send({ type: 'stream', to: 'forever', topic: 'archive', content: 'old, kept forever' });
    ids.directOld = await send({ type: 'direct', to: [ron.userId], content: 'old direct message' });
    // Registered before the messages age: a sweep may come any moment after.
    queueId = (await ron.ok('POST', '/register', { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } })).queue_id as string;
    await age([ids.shortOld!, ids.shortOldInLiveTopic!, ids.realmOld!, ids.foreverOld!, ids.directOld!], 2);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("deletes a channel's messages past its own period, with delete_message events; the organization keeps the rest", async () => {
    await until(async () => !(await visibleIds()).includes(ids.shortOld!), 'the expired message to go');
    await until(async () => !(await visibleIds()).includes(ids.shortOldInLiveTopic!), 'the second expired message to go');
    const left = await visibleIds();
    for (const kept of ['shortFresh', 'realmOld', 'foreverOld', 'directOld']) expect(left, kept).toContain(ids[kept]);

    const events = await deleteEvents();
    const deleted = events.flatMap((e) => e.message_ids as number[]).sort((a, b) => a - b);
    expect(deleted).toEqual([ids.shortOld, ids.shortOldInLiveTopic].sort((a, b) => a! - b!));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'delete_message', message_type: 'stream', stream_id: streamIds['short-lived'], topic: 'old news', message_ids: [ids.shortOld] }),
    );

    // The emptied topic is gone; the other one's latest message is the one left.
    const topics = await ron.ok('GET', `/users/me/${streamIds['short-lived']}/topics`);
    expect(topics.topics).toEqual([{ name: 'today', max_id: ids.shortFresh }]);
    // A deleted message cannot be fetched any more.
    const gone = await ron.get(`/messages/${ids.shortOld}`);
    expect(gone.status).toBe(400);
  });

  it("applies the organization's period to direct messages and to channels that follow it, never to unlimited ones", async () => {
    await owner.ok('PATCH', '/realm', { message_retention_days: 1 });
    await until(async () => {
      const left = await visibleIds();
      return !left.includes(ids.realmOld!) && !left.includes(ids.directOld!);
    }, 'the organization policy to apply');
    // Two more sweeps: still there.
    await new Promise((r) => setTimeout(r, 2200));
    const left = await visibleIds();
    expect(left).toContain(ids.foreverOld);
    expect(left).toContain(ids.shortFresh);

    const events = await deleteEvents();
    expect(events).toContainEqual(expect.objectContaining({ message_type: 'private', message_ids: [ids.directOld] }));
    expect(events).toContainEqual(expect.objectContaining({ message_type: 'stream', stream_id: streamIds['follows-realm'], topic: 'archive', message_ids: [ids.realmOld] }));
    expect(events.flatMap((e) => e.message_ids)).not.toContain(ids.foreverOld);
  });
});
