// Scheduled messages and reminders on the shared server: schedule, list, edit, delete, with
// Zulip's checks of a send, its errors, and the events and register sections. Delivery
// times here are days ahead (nothing is delivered); delivery has its own tests
// (later-delivery.test.ts) on servers of their own.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, register, sendDirect, sendToChannel } from '../helpers/messages.js';
import { expectApplied } from './later-helpers.js';

let owner: Client;
let member: Client;
let other: Client;
let guest: Client;
let channelId: number;
let privateId: number;

const DAY = 24 * 3600;
const inDays = (n: number) => Math.floor(Date.now() / 1000) + n * DAY;

beforeAll(async () => {
  let subdomain: string;
  ({ owner, subdomain } = await newRealm('lsc'));
  member = await newUser(subdomain, 'Mia Member');
  other = await newUser(subdomain, 'Oscar Other');
  guest = await newUser(subdomain, 'Gus Guest', 600);
  channelId = await createChannel(owner, 'design', {}, [member.userId!, other.userId!]);
  privateId = await createChannel(owner, 'secret', { invite_only: true });
});

const ok = (r: { status: number; body: Record<string, any> }) => { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.result).toBe('success');
  return r.body;
};

const laterRegister = (c: Client) => register(c, { fetch_event_types: ['scheduled_messages', 'reminders'] });

const scheduled = async (c: Client) => ok(await c.get('/scheduled_messages')).scheduled_messages as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('scheduled messages', () => {
  it('schedules channel and direct messages; lists them by delivery time; events go to the sender only', async () => {
    const before = await laterRegister(member);
    const watcher = await register(other, { fetch_event_types: [] });
    const later = inDays(2);
    const sooner = inDays(1);
    const channelMsg = ok(await member.post('/scheduled_messages', { type: 'stream', to: channelId, topic: 'logo', content: 'Ship **it**', scheduled_delivery_timestamp: later }));
    const dm = ok(
      await member.post('/scheduled_messages', { type: 'direct', to: [other.userId, member.userId], content: 'Lunch?', scheduled_delivery_timestamp: sooner }),
    );
    const latest = inDays(3);
    const toSelf = ok(await member.post('/scheduled_messages', { type: 'private', to: [member.userId], content: 'note', scheduled_delivery_timestamp: latest }));
    expect(await scheduled(member)).toEqual([
      { scheduled_message_id: dm.scheduled_message_id, type: 'private', to: [other.userId], content: 'Lunch?', rendered_content: '<p>Lunch?</p>', scheduled_delivery_timestamp: sooner, failed: false },
      {
        scheduled_message_id: channelMsg.scheduled_message_id, type: 'stream', to: channelId, topic: 'logo', content: 'Ship **it**',
        rendered_content: '<p>Ship <strong>it</strong></p>', scheduled_delivery_timestamp: later, failed: false,
      },
      { scheduled_message_id: toSelf.scheduled_message_id, type: 'private', to: [member.userId], content: 'note', rendered_content: '<p>note</p>', scheduled_delivery_timestamp: latest, failed: false },
    ]);
    const evs = await events(member, before.queueId);
    expect(evs.map((e) => `${e.type}/${e.op}`)).toEqual(['scheduled_messages/add', 'scheduled_messages/add', 'scheduled_messages/add']);
    expectApplied({ ...before.body, drafts: [], saved_snippets: [], navigation_views: [] }, evs, { ...(await laterRegister(member)).body, drafts: [], saved_snippets: [], navigation_views: [] });
    expect(await events(other, watcher.queueId)).toEqual([]);
    expect(await scheduled(other)).toEqual([]);
    // Nothing was sent.
    const fetched = ok(await other.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0 }));
    expect((fetched.messages as Array<{ content: string }>).some((m) => m.content.includes('Lunch?'))).toBe(false);
  });

  it('edits content, topic, recipient and time; a failed message needs a new time', async () => {
    const id = ok(await member.post('/scheduled_messages', { type: 'channel', to: channelId, topic: 'a', content: 'one', scheduled_delivery_timestamp: inDays(1) }))
      .scheduled_message_id as number;
    const before = await laterRegister(member);
    ok(await member.patch(`/scheduled_messages/${id}`, { topic: 'b' }));
    ok(await member.patch(`/scheduled_messages/${id}`, { content: 'two @**Oscar Other**' }));
    ok(await member.patch(`/scheduled_messages/${id}`, { type: 'direct', to: JSON.stringify([other.userId]) }));
    const when = inDays(4);
    ok(await member.patch(`/scheduled_messages/${id}`, { scheduled_delivery_timestamp: when }));
    const row = (await scheduled(member)).find((m) => m.scheduled_message_id === id)!;
    expect(row).toMatchObject({ type: 'private', to: [other.userId], content: 'two @**Oscar Other**', scheduled_delivery_timestamp: when, failed: false });
    expect(row.rendered_content).toContain('class="user-mention"');
    expect(row.topic).toBeUndefined();
    // A topic alone on a direct message is ignored; back to a channel needs a topic.
    ok(await member.patch(`/scheduled_messages/${id}`, { topic: 'ignored' }));
    expectError(await member.patch(`/scheduled_messages/${id}`, { type: 'stream', to: channelId }), 400, 'BAD_REQUEST', 'Topic required when updating scheduled message type to channel.');
    ok(await member.patch(`/scheduled_messages/${id}`, { type: 'stream', to: channelId, topic: 'back' }));
    const evs = await events(member, before.queueId);
    expect(evs.every((e) => e.type === 'scheduled_messages' && e.op === 'update')).toBe(true);
    expect(evs.at(-1)!.scheduled_message).toMatchObject({ scheduled_message_id: id, type: 'stream', to: channelId, topic: 'back' });
    expectApplied({ ...before.body, drafts: [], saved_snippets: [], navigation_views: [] }, evs, { ...(await laterRegister(member)).body, drafts: [], saved_snippets: [], navigation_views: [] });
  });

  it('deletes a scheduled message; another user cannot see, edit or delete it', async () => {
    const id = ok(await member.post('/scheduled_messages', { type: 'stream', to: channelId, topic: 't', content: 'bye', scheduled_delivery_timestamp: inDays(1) }))
      .scheduled_message_id as number;
    const notFound = 'Scheduled message does not exist';
    expectError(await other.patch(`/scheduled_messages/${id}`, { content: 'hijack' }), 404, 'BAD_REQUEST', notFound);
    expectError(await other.delete(`/scheduled_messages/${id}`), 404, 'BAD_REQUEST', notFound);
    expectError(await owner.delete(`/scheduled_messages/${id}`), 404, 'BAD_REQUEST', notFound);
    const q = await laterRegister(member);
    ok(await member.delete(`/scheduled_messages/${id}`));
    expect(await events(member, q.queueId)).toMatchObject([{ type: 'scheduled_messages', op: 'remove', scheduled_message_id: id }]);
    expect((await scheduled(member)).some((m) => m.scheduled_message_id === id)).toBe(false);
    expectError(await member.delete(`/scheduled_messages/${id}`), 404, 'BAD_REQUEST', notFound);
    expectError(await member.patch(`/scheduled_messages/${id}`, { content: 'x' }), 404, 'BAD_REQUEST', notFound);
  });

  it("refuses what a send would refuse, and bad times and parameters, with Zulip's errors; nothing is stored", async () => {
    const before = await scheduled(member);
    const base = { type: 'stream', to: channelId, topic: 't', content: 'c', scheduled_delivery_timestamp: inDays(1) };
    const cases: Array<[Record<string, unknown>, string, string?]> = [
      [{ scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) - 10 }, 'Scheduled delivery time must be in the future.'],
      [{ type: 'broadcast' }, 'Invalid type'],
      [{ to: 'design' }, 'to is not valid JSON'],
      [{ to: '"design"' }, 'to["int"] is not an integer'],
      [{ to: JSON.stringify([channelId]) }, 'Invalid data type for channel ID'],
      [{ to: 999999 }, "Channel with ID '999999' does not exist", 'STREAM_DOES_NOT_EXIST'],
      [{ to: privateId }, "Not authorized to send to channel 'secret'"],
      [{ topic: undefined }, 'Missing topic'],
      [{ content: '   ' }, 'Message must not be empty'],
      [{ scheduled_delivery_timestamp: 'soon' }, 'scheduled_delivery_timestamp is not an integer'],
      [{ scheduled_delivery_timestamp: 9e15 }, 'Invalid scheduled_delivery_timestamp'],
      [{ type: 'direct', to: other.userId }, 'Invalid data type for recipients'],
      [{ type: 'direct', to: [] }, 'Message must have recipients'],
      [{ type: 'direct', to: [999999] }, 'Invalid user ID 999999'],
      [{ read_by_sender: 'perhaps' }, 'read_by_sender is not a boolean'],
    ];
    for (const [change, msg, code] of cases) {
      const r = await member.post('/scheduled_messages', { ...base, ...change });
      if (code === 'STREAM_DOES_NOT_EXIST') expectError(r, 400, code, msg);
      else expectError(r, 400, 'BAD_REQUEST', msg);
    }
    expectError(await member.post('/scheduled_messages', { type: 'stream', to: channelId, topic: 't', content: 'c' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'scheduled_delivery_timestamp' argument");
    // A guest may not write to a channel it is not subscribed to.
    expectError(await guest.post('/scheduled_messages', base), 400, 'BAD_REQUEST', "Not authorized to send to channel 'design'");
    expect(await scheduled(member)).toEqual(before);
    expect(await scheduled(guest)).toEqual([]);
  });

  it('refuses bad edits, changing nothing', async () => {
    const id = ok(await member.post('/scheduled_messages', { type: 'stream', to: channelId, topic: 't', content: 'keep', scheduled_delivery_timestamp: inDays(1) }))
      .scheduled_message_id as number;
    const before = (await scheduled(member)).find((m) => m.scheduled_message_id === id);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'Nothing to change'],
      [{ type: 'direct' }, 'Recipient required when updating type of scheduled message.'],
      [{ scheduled_delivery_timestamp: 1000 }, 'Scheduled delivery time must be in the future.'],
      [{ content: '' }, 'Message must not be empty'],
      [{ type: 'direct', to: [999999] }, 'Invalid user ID 999999'],
      [{ to: 'x' }, 'to is not valid JSON'],
    ];
    for (const [params, msg] of cases) expectError(await member.patch(`/scheduled_messages/${id}`, params), 400, 'BAD_REQUEST', msg);
    expectError(await member.patch(`/scheduled_messages/${id}`, { to: privateId }), 400, 'BAD_REQUEST', "Not authorized to send to channel 'secret'");
    expectError(await member.patch(`/scheduled_messages/${id}`, { to: 999999 }), 400, 'STREAM_DOES_NOT_EXIST', "Channel with ID '999999' does not exist");
    expect((await scheduled(member)).find((m) => m.scheduled_message_id === id)).toEqual(before);
  });
});

describe('reminders', () => {
  it('schedules a reminder about a readable message; lists and deletes it; events to the user only', async () => {
    const channelMsg = await sendToChannel(other, 'design', 'plans', 'Plan **B**');
    const dmMsg = await sendDirect(other, [member.userId!], 'psst');
    const before = await laterRegister(member);
    const watcher = await register(other, { fetch_event_types: [] });
    const at = inDays(1);
    const first = ok(await member.post('/reminders', { message_id: channelMsg, scheduled_delivery_timestamp: at })).reminder_id as number;
    const second = ok(await member.post('/reminders', { message_id: dmMsg, scheduled_delivery_timestamp: at + 60 })).reminder_id as number;
    const listed = ok(await member.get('/reminders')).reminders as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(listed.map((r) => r.reminder_id)).toEqual([first, second]);
    expect(listed[0]).toMatchObject({ type: 'private', to: [member.userId], scheduled_delivery_timestamp: at, failed: false, reminder_target_message_id: channelMsg });
    expect(listed[0]!.content).toContain('You requested a reminder for the following message.');
    expect(listed[0]!.content).toContain(`@_**Oscar Other|${other.userId}** [said](`);
    expect(listed[0]!.content).toContain(`#**design>plans@${channelMsg}**`);
    expect(listed[0]!.content).toContain('```quote\nPlan **B**\n```');
    expect(listed[1]!.content).toContain('You requested a reminder for the following direct message.');
    expect(listed[1]!.content).toContain(`to @_**Mia Member|${member.userId}**:`);
    expect(await scheduled(member)).not.toContainEqual(expect.objectContaining({ scheduled_message_id: first }));

    ok(await member.delete(`/reminders/${first}`));
    const evs = await events(member, before.queueId);
    expect(evs.map((e) => `${e.type}/${e.op}`)).toEqual(['reminders/add', 'reminders/add', 'reminders/remove']);
    expectApplied({ ...before.body, drafts: [], saved_snippets: [], navigation_views: [] }, evs, { ...(await laterRegister(member)).body, drafts: [], saved_snippets: [], navigation_views: [] });
    expect(await events(other, watcher.queueId)).toEqual([]);
    expectError(await other.delete(`/reminders/${second}`), 404, 'BAD_REQUEST', 'Reminder does not exist');
    expectError(await member.delete(`/reminders/${first}`), 404, 'BAD_REQUEST', 'Reminder does not exist');
    // A scheduled message's id is no reminder, and the reverse.
    const sm = ok(await member.post('/scheduled_messages', { type: 'direct', to: [other.userId], content: 'x', scheduled_delivery_timestamp: inDays(1) })).scheduled_message_id;
    expectError(await member.delete(`/reminders/${sm}`), 404, 'BAD_REQUEST', 'Reminder does not exist');
    expectError(await member.delete(`/scheduled_messages/${second}`), 404, 'BAD_REQUEST', 'Scheduled message does not exist');
  });

  it('refuses reminders about messages the user cannot read, and bad times', async () => {
    const secret = await sendToChannel(owner, 'secret', 'hush', 'owners only');
    const readable = await sendToChannel(other, 'design', 'x', 'y');
    expectError(await member.post('/reminders', { message_id: secret, scheduled_delivery_timestamp: inDays(1) }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expectError(await member.post('/reminders', { message_id: 99999999, scheduled_delivery_timestamp: inDays(1) }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expectError(await member.post('/reminders', { message_id: readable, scheduled_delivery_timestamp: 1000 }), 400, 'BAD_REQUEST', 'Scheduled delivery time must be in the future.');
    expectError(await member.post('/reminders', { message_id: 'x', scheduled_delivery_timestamp: inDays(1) }), 400, 'BAD_REQUEST', 'message_id is not an integer');
    expectError(await member.post('/reminders', { message_id: readable }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'scheduled_delivery_timestamp' argument");
    // `note` came after feature level 406: it is reported as not supported.
    const r = ok(await member.post('/reminders', { message_id: readable, scheduled_delivery_timestamp: inDays(1), note: 'n' }));
    expect(r.ignored_parameters_unsupported).toEqual(['note']);
  });
});
