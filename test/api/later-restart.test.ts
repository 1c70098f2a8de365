// A scheduled message survives a crash of the one-process server: killed with SIGKILL just
// before the due time (its in-process timer dies with it), the server is started again on
// the same database, finds the message and delivers it once; one due after the restart
// arrives with its events to the queues registered on the new process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel, events, register } from '../helpers/messages.js';
import { until } from '../helpers/ownServer.js';
import type { PortClient } from './events-support.js';
import { IsolatedServer } from './later-helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let server: IsolatedServer;
let owner: PortClient;
let member: PortClient;
let other: PortClient;
let design: number;

beforeAll(async () => {
  // Sweeps every second: a duplicate delivery would have every chance to happen.
  server = await IsolatedServer.start({ SCHEDULED_SWEEP_SECONDS: '1' });
  let subdomain: string;
  ({ owner, subdomain } = await server.realm('lrs'));
  member = await server.user(subdomain, 'Mia Member');
  other = await server.user(subdomain, 'Oscar Other');
  design = await createChannel(owner, 'design', {}, [member.userId!, other.userId!]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const ok = (r: { status: number; body: Json }) => {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

async function withText(c: PortClient, text: string): Promise<Json[]> {
  const r = ok(await c.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, apply_markdown: false }));
  return (r.messages as Json[]).filter((m) => m.content === text);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a crash of the process before the due time', () => {
  it('loses no scheduled message and delivers each once after the restart', async () => {
    const now = Math.ceil(Date.now() / 1000);
    const dueSoon = ok(await member.post('/scheduled_messages', { type: 'direct', to: [other.userId], content: 'due before the restart', scheduled_delivery_timestamp: now + 2 }));
    const dueLater = ok(await member.post('/scheduled_messages', { type: 'stream', to: design, topic: 'after', content: 'due after the restart', scheduled_delivery_timestamp: now + 8 }));
    expect(dueSoon.scheduled_message_id).not.toBe(dueLater.scheduled_message_id);
    // Just before the first one is due.
    await sleep(Math.max(0, (now + 2) * 1000 - Date.now() - 400));
    await server.crashAndRestart();
    [owner, member, other] = [owner, member, other].map((c) => server.client(c));
    const queues = await Promise.all([owner, member, other].map((c) => register(c, { event_types: ['message', 'scheduled_messages'], fetch_event_types: [] })));

    await until(async () => (await withText(other, 'due before the restart')).length > 0, 'the message due before the restart', 10_000);
    await until(async () => (await withText(owner, 'due after the restart')).length > 0, 'the message due after the restart', 12_000);
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(now + 8);
    // Several sweeps later, still once each.
    await sleep(2500);
    for (const c of [member, other]) expect(await withText(c, 'due before the restart'), c.email).toHaveLength(1);
    for (const c of [owner, member, other]) expect(await withText(c, 'due after the restart'), c.email).toHaveLength(1);
    expect(ok(await member.get('/scheduled_messages')).scheduled_messages).toEqual([]);

    // The one due after the restart came to the new process's queues as a normal message.
    for (const [i, c] of [owner, member, other].entries()) {
      const msgs = (await events(c, queues[i]!.queueId)).filter((e) => e.type === 'message' && e.message.content === 'due after the restart');
      expect(msgs, c.email).toHaveLength(1);
      expect(msgs[0]!.message).toMatchObject({ sender_id: member.userId, display_recipient: 'design', subject: 'after' });
    }
    const removed = (await events(member, queues[1]!.queueId)).filter((e) => e.type === 'scheduled_messages' && e.op === 'remove');
    expect(removed.map((e) => e.scheduled_message_id)).toContain(dueLater.scheduled_message_id);
  });
});
