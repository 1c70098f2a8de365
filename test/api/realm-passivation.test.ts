// Idle realms are unloaded from memory (REALM_IDLE_SECONDS) and loaded again by their next
// request, with everything they had; a realm with an event queue stays loaded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, type Client } from '../helpers/client.js';
import { httpRequest } from '../helpers/client.js';
import { OwnClient, startOwnServer, until, type OwnServer } from '../helpers/ownServer.js';

let server: OwnServer;
let quiet: OwnClient;
let busy: OwnClient;

async function activeRealms(): Promise<number> {
  const r = await httpRequest(server.port, { method: 'GET', path: '/health', host: 'localhost' });
  return r.body.realms_active as number;
}

beforeAll(async () => {
  server = await startOwnServer({ REALM_IDLE_SECONDS: '1', QUEUE_GC_SECONDS: '0.3' }, false);
  const a: { owner: Client } = await newRealm('idlea');
  const b: { owner: Client } = await newRealm('idleb');
  quiet = new OwnClient(server.port, a.owner);
  busy = new OwnClient(server.port, b.owner);
});

afterAll(async () => {
  await server?.stop();
});

describe('idle realms', () => {
  it('are unloaded, then served again with their data by the next request', async () => {
    await quiet.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'kept' }] });
    const sent = await quiet.ok('POST', '/messages', { type: 'stream', to: 'kept', topic: 't', content: 'still here' });
    expect(await activeRealms()).toBeGreaterThanOrEqual(1);
    await until(async () => (await activeRealms()) === 0, 'the idle realm to be unloaded', 8000);

    const fetched = await quiet.ok('GET', `/messages/${sent.id}`);
    expect(fetched.message.content).toBe('<p>still here</p>');
    expect(await activeRealms()).toBe(1);
  });

  it('stay loaded while a client holds an event queue', async () => {
    const reg = await busy.ok('POST', '/register', { event_types: ['message'] });
    await new Promise((r) => setTimeout(r, 2500));
    // The queue survives: the realm was not unloaded under it.
    const poll = await busy.ok('GET', '/events', { queue_id: reg.queue_id, last_event_id: -1, dont_block: true });
    expect(poll.events).toEqual([]);
    await busy.ok('DELETE', '/events', { queue_id: reg.queue_id });
  });
});
