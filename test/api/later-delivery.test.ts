// Delivery of scheduled messages and reminders, on a server of its own with a database of its
// own (one-process mode: in-process delayed jobs). A message scheduled 2 s ahead arrives once,
// as a normal message with its events, to every recipient; an edit moves it and a deletion
// cancels it; delivery checks the sender's rights again and records a refusal. Last, the
// process is killed with SIGKILL just before a due time (its in-process timers die with it)
// and started again on the same database: it finds the messages and delivers each once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChannel, events, register, unsubscribe } from '../helpers/messages.js';
import { until } from '../helpers/ownServer.js';
import type { PortClient } from './events-support.js';
import { IsolatedServer } from './later-helpers.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let server: IsolatedServer;
let owner: PortClient;
let member: PortClient;
let other: PortClient;
let subdomain: string;

beforeAll(async () => {
  server = await IsolatedServer.start();
  ({ owner, subdomain } = await server.realm('ldl'));
  member = await server.user(subdomain, 'Mia Member');
  other = await server.user(subdomain, 'Oscar Other');
  await createChannel(owner, 'design', {}, [member.userId!, other.userId!]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

const ok = (r: { status: number; body: Json }) => {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

const secondsFromNow = (s: number) => Math.ceil(Date.now() / 1000) + s;

/** The messages a client can read whose content contains `text`. */
async function withText(c: PortClient, text: string): Promise<Json[]> {
  const r = ok(await c.get('/messages', { anchor: 'newest', num_before: 200, num_after: 0, apply_markdown: false }));
  return (r.messages as Json[]).filter((m) => (m.content as string).includes(text));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('delivery of a scheduled message', () => {
  it('arrives once, 2 s later, as a normal message with its events, to every recipient', async () => {
    const qs = await Promise.all([member, other, owner].map((c) => register(c, { event_types: ['message', 'scheduled_messages'], fetch_event_types: [] })));
    const at = secondsFromNow(2);
    const channelMsg = ok(await member.post('/scheduled_messages', { type: 'stream', to: JSON.stringify((await streamId(member, 'design'))), topic: 'plan', content: 'Ship at noon', scheduled_delivery_timestamp: at })).scheduled_message_id as number;
    const dm = ok(await member.post('/scheduled_messages', { type: 'direct', to: [other.userId], content: 'Psst, lunch', scheduled_delivery_timestamp: at })).scheduled_message_id as number;
    expect(await withText(other, 'Ship at noon')).toEqual([]);

    await until(async () => (await withText(other, 'Psst, lunch')).length > 0 && (await withText(other, 'Ship at noon')).length > 0, 'the deliveries', 10_000);
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(at);
    await sleep(500);
    for (const c of [member, other, owner]) expect(await withText(c, 'Ship at noon'), `channel message for ${c.email}`).toHaveLength(1);
    for (const c of [member, other]) expect(await withText(c, 'Psst, lunch'), `direct message for ${c.email}`).toHaveLength(1);
    expect(await withText(owner, 'Psst, lunch')).toEqual([]);
    const [sent] = await withText(other, 'Ship at noon');
    expect(sent).toMatchObject({ sender_id: member.userId, type: 'stream', subject: 'plan', display_recipient: 'design', flags: [] });
    expect(ok(await member.get('/scheduled_messages')).scheduled_messages).toEqual([]);

    const [memberQ, otherQ, ownerQ] = qs;
    const memberEvents = await events(member, memberQ!.queueId);
    expect(memberEvents.filter((e) => e.type === 'message').map((e) => e.message.content)).toEqual(expect.arrayContaining(['Ship at noon', 'Psst, lunch']));
    expect(memberEvents.filter((e) => e.type === 'message')).toHaveLength(2);
    expect(memberEvents.filter((e) => e.type === 'scheduled_messages').map((e) => `${e.op}:${e.scheduled_message_id ?? ''}`).sort()).toEqual(
      ['add:', 'add:', `remove:${channelMsg}`, `remove:${dm}`].sort(),
    );
    expect((await events(other, otherQ!.queueId)).filter((e) => e.type === 'message')).toHaveLength(2);
    const ownerMessages = (await events(owner, ownerQ!.queueId)).filter((e) => e.type === 'message');
    expect(ownerMessages.map((e) => e.message.content)).toEqual(['Ship at noon']);
    // Scheduled from an API client: Zulip's default leaves the sender's own copy unread.
    expect(memberEvents.find((e) => e.type === 'message' && e.message.content === 'Ship at noon')!.flags).toEqual([]);
  });

  it('is moved by an edit and cancelled by a deletion before its time', async () => {
    const at = secondsFromNow(2);
    const post = async (content: string) =>
      ok(await member.post('/scheduled_messages', { type: 'direct', to: [other.userId], content, scheduled_delivery_timestamp: at })).scheduled_message_id as number;
    const moved = await post('moved one');
    const cancelled = await post('cancelled one');
    await post('kept one');
    const movedTo = at + 2;
    ok(await member.patch(`/scheduled_messages/${moved}`, { scheduled_delivery_timestamp: movedTo, content: 'moved one, edited' }));
    ok(await member.delete(`/scheduled_messages/${cancelled}`));
    await until(async () => (await withText(other, 'kept one')).length > 0, 'the kept message', 10_000);
    expect(await withText(other, 'moved one')).toEqual([]);
    await until(async () => (await withText(other, 'moved one')).length > 0, 'the moved message', 10_000);
    expect(Date.now() / 1000).toBeGreaterThanOrEqual(movedTo);
    await sleep(500);
    expect((await withText(other, 'moved one')).map((m) => m.content)).toEqual(['moved one, edited']);
    expect(await withText(other, 'kept one')).toHaveLength(1);
    expect(await withText(other, 'cancelled one')).toEqual([]);
    // Once sent, it can no longer be edited.
    const r = await member.patch(`/scheduled_messages/${moved}`, { content: 'too late' });
    expect(r.status).toBe(400);
    expect(r.body.msg).toBe('Scheduled message was already sent');
  });

  it('checks the rights again at delivery: a sender who lost access gets a failed message and a notice', async () => {
    const sender = await server.user(subdomain, 'Lou Loses');
    ok(await sender.get('/users/me')); // the server learns of the new user
    await createChannel(owner, 'vault', { invite_only: true }, [sender.userId!, other.userId!]);
    const vault = await streamId(owner, 'vault');
    const q = await register(sender, { event_types: ['message', 'scheduled_messages'], fetch_event_types: [] });
    const otherQ = await register(other, { event_types: ['message'], fetch_event_types: [] });
    const at = secondsFromNow(2);
    const id = ok(await sender.post('/scheduled_messages', { type: 'stream', to: vault, topic: 'gold', content: 'open the vault', scheduled_delivery_timestamp: at })).scheduled_message_id as number;
    await unsubscribe(owner, 'vault', [sender.userId!]);

    const failed = await until(async () => {
      const list = ok(await sender.get('/scheduled_messages')).scheduled_messages as Json[];
      return list.find((m) => m.scheduled_message_id === id && m.failed === true);
    }, 'the failure', 10_000);
    expect(failed).toMatchObject({ type: 'stream', to: vault, topic: 'gold', content: 'open the vault', scheduled_delivery_timestamp: at });
    expect(await withText(other, 'open the vault')).toEqual([]);
    const notice = await until(async () => (await withText(sender, 'was not sent because of the following error')).at(0), 'the notice', 5000) as Json;
    expect(notice.sender_full_name).toBe('Notification Bot');
    expect(notice.content).toBe(
      `The message you scheduled for <time:${new Date(at * 1000).toISOString().replace('.000Z', '+00:00')}> was not sent because of the following error:\n\n` +
        "> Not authorized to send to channel 'vault'\n\n[View scheduled messages](#scheduled)",
    );
    const evs = await events(sender, q.queueId);
    expect(evs.filter((e) => e.type === 'scheduled_messages').map((e) => e.op)).toEqual(['add', 'update']);
    expect(evs.find((e) => e.op === 'update')!.scheduled_message).toMatchObject({ scheduled_message_id: id, failed: true });
    expect((await events(other, otherQ.queueId)).filter((e) => e.type === 'message')).toEqual([]);

    // A failed message is sent again only at a new time; the edit clears `failed`.
    const again = await sender.patch(`/scheduled_messages/${id}`, { content: 'retry' });
    expect(again.body.msg).toBe('Scheduled delivery time must be in the future.');
    ok(await sender.patch(`/scheduled_messages/${id}`, { type: 'direct', to: [other.userId], scheduled_delivery_timestamp: secondsFromNow(30) }));
    expect((ok(await sender.get('/scheduled_messages')).scheduled_messages as Json[]).find((m) => m.scheduled_message_id === id)).toMatchObject({ failed: false, type: 'private' });
  });
});

describe('delivery of a reminder', () => {
  it('sends a Notification Bot direct message quoting the message, once', async () => {
    const target = ok(await other.post('/messages', { type: 'stream', to: 'design', topic: 'dates', content: 'Launch is on **Friday**' })).id as number;
    const q = await register(member, { event_types: ['message', 'reminders'], fetch_event_types: [] });
    const id = ok(await member.post('/reminders', { message_id: target, scheduled_delivery_timestamp: secondsFromNow(2) })).reminder_id as number;
    const reminder = await until(async () => (await withText(member, 'You requested a reminder')).at(0), 'the reminder', 10_000) as Json;
    expect(reminder).toMatchObject({ sender_full_name: 'Notification Bot', type: 'private' });
    expect((reminder.display_recipient as Json[]).map((u) => u.id).sort()).toEqual([member.userId, reminder.sender_id].sort());
    expect(reminder.content).toContain('```quote\nLaunch is on **Friday**\n```');
    await sleep(500);
    expect(await withText(member, 'You requested a reminder')).toHaveLength(1);
    expect(await withText(other, 'You requested a reminder')).toEqual([]);
    const evs = await events(member, q.queueId);
    expect(evs.filter((e) => e.type === 'reminders').map((e) => e.op)).toEqual(['add', 'remove']);
    expect(evs.find((e) => e.type === 'reminders' && e.op === 'remove')!.reminder_id).toBe(id);
    expect(evs.filter((e) => e.type === 'message')).toHaveLength(1);
    expect(ok(await member.get('/reminders')).reminders).toEqual([]);
  });
});

describe('a crash of the process before the due time', () => {
  it('loses no scheduled message and delivers each once after the restart', async () => {
    const now = Math.ceil(Date.now() / 1000);
    const dueSoon = ok(await member.post('/scheduled_messages', { type: 'direct', to: [other.userId], content: 'due before the restart', scheduled_delivery_timestamp: now + 2 }));
    const dueLater = ok(await member.post('/scheduled_messages', { type: 'stream', to: await streamId(member, 'design'), topic: 'after', content: 'due after the restart', scheduled_delivery_timestamp: now + 8 }));
    expect(dueSoon.scheduled_message_id).not.toBe(dueLater.scheduled_message_id);
    // Just before the first one is due.
    await sleep(Math.max(0, (now + 2) * 1000 - Date.now() - 400));
    // Sweeps every second from now on: a duplicate delivery would have every chance to happen.
    await server.crashAndRestart({ SCHEDULED_SWEEP_SECONDS: '1' });
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

async function streamId(c: PortClient, name: string): Promise<number> {
  return ok(await c.get('/get_stream_id', { stream: name })).stream_id as number;
}
