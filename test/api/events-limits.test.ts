// Queue bounds and expiry, on a server of our own with tiny limits: a queue that overflows is
// dropped, an idle queue is collected after its lifespan, a parked poll keeps its queue alive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm } from '../helpers/client.js';
import { ownServer, PortClient, sleep } from './events-support.js';

let server: Awaited<ReturnType<typeof ownServer>>;
let owner: PortClient;

beforeAll(async () => {
  server = await ownServer({ QUEUE_MAX_EVENTS: '5', QUEUE_GC_SECONDS: '0.25', HEARTBEAT_SECONDS: '60' });
  owner = PortClient.of(server.port, (await newRealm('evl')).owner);
});

afterAll(async () => {
  await server?.stop();
});

const queue = async (params: Record<string, unknown> = {}) => {
  const r = await owner.post('/register', { fetch_event_types: [], ...params });
  expect(r.status).toBe(200);
  return r.body.queue_id as string;
};

const poll = (q: string, extra: Record<string, unknown> = {}) =>
  owner.get('/events', { queue_id: q, last_event_id: -1, dont_block: true, ...extra });

describe('a bounded queue', () => {
  // send_read_receipts has no legacy event form: one change, one event.
  it('holds up to QUEUE_MAX_EVENTS events, then is dropped so its client re-registers', async () => {
    const q = await queue();
    for (let i = 0; i < 5; i++) expect((await owner.patch('/settings', { send_read_receipts: i % 2 === 1 })).status).toBe(200);
    const full = await poll(q);
    expect(full.status).toBe(200);
    expect(full.body.events).toHaveLength(5);
    await owner.patch('/settings', { send_read_receipts: true });
    const dropped = await poll(q);
    expect(dropped.status).toBe(400);
    expect(dropped.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: q });
  });

  it('makes room as the client acknowledges events', async () => {
    const q = await queue();
    let last = -1;
    for (let i = 0; i < 12; i++) {
      await owner.patch('/settings', { send_read_receipts: i % 2 === 1 });
      const r = await poll(q, { last_event_id: last });
      expect(r.status).toBe(200);
      last = r.body.events[r.body.events.length - 1].id;
    }
    expect(last).toBe(11);
  });
});

describe('queue expiry', () => {
  it('collects a queue idle past queue_lifespan_secs', async () => {
    const q = await queue({ queue_lifespan_secs: 1 });
    const kept = await queue();
    expect((await poll(q)).status).toBe(200);
    await sleep(1600);
    const gone = await poll(q);
    expect(gone.status).toBe(400);
    expect(gone.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: q });
    expect((await poll(kept)).status).toBe(200);
  });

  it('keeps a queue whose poll is parked, and counts idleness from the poll’s end', async () => {
    const q = await queue({ queue_lifespan_secs: 1 });
    const parked = owner.get('/events', { queue_id: q, last_event_id: -1 });
    await sleep(1600);
    await owner.patch('/settings', { enter_sends: false });
    await owner.patch('/settings', { enter_sends: true });
    const r = await parked;
    expect(r.status).toBe(200);
    expect(r.body.events.length).toBeGreaterThan(0);
    expect((await poll(q)).status).toBe(200);
  });
});
