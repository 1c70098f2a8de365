// A POST /register that fails after its queue was made leaves no queue behind: not when a
// section of the initial state fails (here a query the test cancels while it waits for a
// table lock), not when the client leaves before the answer. The queue count is back where it
// was, and the dropped queue's id (the server logs it) answers BAD_EVENT_QUEUE_ID.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Params } from '../helpers/client.js';
import { droppedQueueIds, leavableRegister } from '../helpers/registerCleanup.js';
import { until } from '../helpers/ownServer.js';
import { lockTable } from '../helpers/tableLock.js';
import { IsolatedServer } from './later-helpers.js';
import type { PortClient } from './events-support.js';

let server: IsolatedServer;
let owner: PortClient;

beforeAll(async () => {
  // A database of its own: the test locks one of its tables. Info logs name dropped queues.
  server = await IsolatedServer.start({ LOG_LEVEL: 'info' });
  ({ owner } = await server.realm('regclean'));
  // The realm is in memory before the tests count its queues.
  expect((await owner.post('/register', { fetch_event_types: [] })).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
});

async function queueCount(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
  const m = /^chat_event_queues (\d+)$/m.exec(text);
  if (!m) throw new Error(`no chat_event_queues in /metrics:\n${text}`);
  return Number(m[1]);
}

const dropped = () => droppedQueueIds(server.logs());
const register = (params: Params) => leavableRegister({ port: owner.serverPort, host: owner.host, email: owner.email!, apiKey: owner.apiKey! }, params);

const poll = (queueId: string) => owner.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });

describe('a register that fails after making its queue', () => {
  it('drops the queue when a section of the initial state fails', async () => {
    const before = await queueCount();
    const lock = await lockTable(server.databaseUrl, 'drafts');
    let reply;
    try {
      const pending = register({ fetch_event_types: ['drafts'] });
      await until(async () => (await lock.waiting()).length > 0, 'the register to wait for the drafts');
      // The queue exists while the state is built.
      expect(await queueCount()).toBe(before + 1);
      await lock.cancelWaiting();
      reply = await pending.reply;
    } finally {
      await lock.release();
    }
    // The error the client always got for a failed query.
    expect(reply).toMatchObject({ status: 500, body: { result: 'error', code: 'INTERNAL_SERVER_ERROR' } });
    expect(await queueCount()).toBe(before);
    const queueId = dropped().at(-1)!;
    expect(queueId).toBeDefined();
    expect((await poll(queueId)).body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: queueId });
  });

  it('drops the queue when the client leaves before the answer', async () => {
    const before = await queueCount();
    const seen = dropped().length;
    const lock = await lockTable(server.databaseUrl, 'drafts');
    try {
      const pending = register({ fetch_event_types: ['drafts'] });
      await until(async () => (await lock.waiting()).length > 0, 'the register to wait for the drafts');
      expect(await queueCount()).toBe(before + 1);
      pending.leave();
      expect(await pending.reply).toBe('left');
      // Gone at once, while the register still waits for the lock.
      await until(async () => (await queueCount()) === before, 'the queue to be dropped');
    } finally {
      await lock.release();
    }
    // The abandoned register's turn ended: the next one is served, and only its queue is new.
    const next = await owner.post('/register', { fetch_event_types: [] });
    expect(next.status).toBe(200);
    expect(await queueCount()).toBe(before + 1);
    const queueIds = dropped().slice(seen);
    expect(queueIds).toHaveLength(1);
    expect((await poll(queueIds[0]!)).body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: queueIds[0] });
    expect((await owner.request('DELETE', '/events', { queue_id: next.body.queue_id as string })).status).toBe(200);
    expect(await queueCount()).toBe(before);
  });
});
