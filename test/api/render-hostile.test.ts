// A linkifier that backtracks catastrophically (CVE-2021-41115) must not stall the server:
// a message that triggers it is refused once the render budget runs out, the server keeps
// answering meanwhile, and the next message renders normally. Runs its own server with a
// small RENDER_BUDGET_MS (the shared one keeps the default). Its realm is set up through the
// shared server, so the own server also shows that linkifiers and playgrounds persist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm } from '../helpers/client.js';
import { expectError } from '../helpers/messages.js';
import { ownServer, PortClient } from './events-support.js';

// Long enough that the probe below is answered well before the budget runs out, however
// busy the machine.
const BUDGET_MS = 1000;
const EVIL = 'a'.repeat(40) + 'b';

let server: Awaited<ReturnType<typeof ownServer>>;
let shared: Client;
let owner: PortClient;

beforeAll(async () => {
  ({ owner: shared } = await newRealm('rhost'));
  // Set up on the shared server; the own server loads the realm from the database.
  expect((await shared.post('/realm/filters', { pattern: '(a+)+$', url_template: 'https://example.com/' })).status).toBe(200);
  expect((await shared.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://issues.example/{id}' })).status).toBe(200);
  expect((await shared.post('/realm/playgrounds', { name: 'Rust', pygments_language: 'Rust', url_template: 'https://play.rust-lang.org/?code={code}' })).status).toBe(200);
  const sub = await shared.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }] });
  expect(sub.status, JSON.stringify(sub.body)).toBe(200);
  server = await ownServer({ RENDER_BUDGET_MS: String(BUDGET_MS), RENDER_THREADS: '1' });
  owner = PortClient.of(server.port, shared);
});

afterAll(async () => {
  await server?.stop();
});

const send = (content: string, topic = 'hostile') => owner.post('/messages', { type: 'stream', to: 'general', topic, content });

describe('a catastrophic linkifier', () => {
  it('linkifiers and playgrounds were loaded from the database', async () => {
    const r = await owner.get('/realm/linkifiers');
    expect(r.body.linkifiers.map((l: { pattern: string }) => l.pattern)).toEqual(['(a+)+$', '#(?P<id>[0-9]+)']);
    const reg = await owner.post('/register', { fetch_event_types: ['realm_playgrounds'] });
    expect(reg.body.realm_playgrounds).toEqual([
      expect.objectContaining({ name: 'Rust', pygments_language: 'Rust', url_template: 'https://play.rust-lang.org/?code={code}' }),
    ]);
  });

  it('a message that sets it off is refused once the budget runs out; the server answers meanwhile', async () => {
    let refused = false;
    const pending = send(EVIL).then((r) => ((refused = true), r));
    await new Promise((r) => setTimeout(r, 50));
    // The render is still running (it never ends by itself): the server answers others first.
    const probe = await owner.get('/realm/linkifiers');
    expect(probe.status).toBe(200);
    expect(refused).toBe(false);

    const r = await pending;
    expectError(r, 400, 'BAD_REQUEST', 'Unable to render message');
    // Nothing was stored.
    const latest = await owner.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [['channel', 'general']] });
    expect(latest.body.messages.map((m: { content: string }) => m.content).join('')).not.toContain('aaaa');
  });

  it('the next message renders normally, linkifiers included', async () => {
    const r = await send('fixed #12');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const m = await owner.get(`/messages/${r.body.id}`);
    expect(m.body.message.content).toBe('<p>fixed <a href="https://issues.example/12">#12</a></p>');
  });

  it('POST /messages/render refuses it the same way', async () => {
    expectError(await owner.post('/messages/render', { content: `x ${EVIL}` }), 400, 'BAD_REQUEST', 'Unable to render message');
    const ok = await owner.post('/messages/render', { content: '**fine**' });
    expect(ok.body.rendered).toBe('<p><strong>fine</strong></p>');
  });

  it('a topic that sets it off does not stall fetching the message', async () => {
    const r = await send('harmless', EVIL);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // The pattern never finishes on this topic: a fetch that ran it would not come back.
    const m = await owner.get(`/messages/${r.body.id}`);
    expect(m.status).toBe(200);
    expect(m.body.message.subject).toBe(EVIL);
  });
});
