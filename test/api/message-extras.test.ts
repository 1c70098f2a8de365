// What else clients do with a message: its edit history, read receipts, reporting it to the
// moderators, typing while editing it; deleting a topic; and joining and leaving channels in
// one PATCH /users/me/subscriptions. Answers, errors, events and what others see.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser } from '../helpers/client.js';
import { eventsNow, eventsOfType, queueFor } from './events-support.js';
import { expectResponse } from '../helpers/responses/index.js';

let owner: Client;
let bob: Client;
let carol: Client;
let dave: Client;
let channelId: number;

type R = { status: number; body: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
const ok = (r: R) => {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
const expectError = (r: R, msg: string, code = 'BAD_REQUEST', status = 400) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body).toMatchObject({ result: 'error', code, msg });
};
const send = async (from: Client, topic: string, content: string) =>
  ok(await from.post('/messages', { type: 'stream', to: 'extras', topic, content })).id as number;

beforeAll(async () => {
  const realm = await newRealm('mext');
  owner = realm.owner;
  bob = await newUser(realm.subdomain, 'Bob Extra');
  carol = await newUser(realm.subdomain, 'Carol Extra');
  dave = await newUser(realm.subdomain, 'Dave Outside');
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'extras' }], principals: [owner.userId, bob.userId, carol.userId] }));
  channelId = ok(await owner.get('/get_stream_id', { stream: 'extras' })).stream_id;
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'other place' }], principals: [owner.userId, bob.userId] }));
});

describe('GET /messages/{id}/history', () => {
  let id: number;
  let otherChannel: number;

  beforeAll(async () => {
    otherChannel = ok(await owner.get('/get_stream_id', { stream: 'other place' })).stream_id;
    id = await send(bob, 'topic 1', 'content 1');
    ok(await bob.patch(`/messages/${id}`, { content: 'content 2' }));
    ok(await bob.patch(`/messages/${id}`, { topic: 'topic 2' }));
    ok(await owner.patch(`/messages/${id}`, { stream_id: otherChannel }));
  });

  it('lists every version, oldest first, with what each change did', async () => {
    const history = expectResponse('GET /messages/{id}/history', await owner.get(`/messages/${id}/history`)).message_history;
    expect(history).toHaveLength(4);
    expect(history[0]).toEqual({ content: 'content 1', rendered_content: '<p>content 1</p>', timestamp: expect.any(Number), topic: 'topic 1', user_id: bob.userId });
    expect(history[1]).toMatchObject({ content: 'content 2', prev_content: 'content 1', prev_rendered_content: '<p>content 1</p>', topic: 'topic 1', user_id: bob.userId });
    expect(history[1].content_html_diff).toContain('highlight_text_inserted');
    expect(history[1].content_html_diff).toContain('highlight_text_deleted');
    expect(history[2]).toMatchObject({ content: 'content 2', topic: 'topic 2', prev_topic: 'topic 1' });
    expect(history[3]).toMatchObject({ topic: 'topic 2', stream: otherChannel, prev_stream: channelId, user_id: owner.userId });
    expect(history[3]).not.toHaveProperty('prev_content');
  });

  it('shows only moves when the organization says so, and nothing when it turns history off', async () => {
    ok(await owner.patch('/realm', { message_edit_history_visibility_policy: 'moves' }));
    const moves = expectResponse('GET /messages/{id}/history', await bob.get(`/messages/${id}/history`)).message_history;
    expect(moves.map((e: { topic: string }) => e.topic)).toEqual(['topic 1', 'topic 2', 'topic 2']);
    for (const e of moves) {
      expect(e).not.toHaveProperty('prev_content');
      expect(e).not.toHaveProperty('prev_rendered_content');
      expect(e).not.toHaveProperty('content_html_diff');
    }
    ok(await owner.patch('/realm', { message_edit_history_visibility_policy: 'none' }));
    expectError(await bob.get(`/messages/${id}/history`), 'Message edit history is disabled in this organization');
    ok(await owner.patch('/realm', { message_edit_history_visibility_policy: 'all' }));
  });

  it('is refused for messages the caller cannot read', async () => {
    const direct = ok(await bob.post('/messages', { type: 'direct', to: [owner.userId], content: 'between us' })).id;
    expectError(await carol.get(`/messages/${direct}/history`), 'Invalid message(s)');
    expectError(await bob.get('/messages/99999999/history'), 'Invalid message(s)');
  });
});

describe('GET /messages/{id}/read_receipts', () => {
  it('lists who read the message, as the organization and each user allow', async () => {
    const id = await send(owner, 'receipts', 'did you read this?');
    expectError(await bob.get(`/messages/${id}/read_receipts`), 'Read receipts are disabled in this organization.');
    ok(await owner.patch('/realm', { enable_read_receipts: true }));
    expect(expectResponse('GET /messages/{id}/read_receipts', await bob.get(`/messages/${id}/read_receipts`)).user_ids).toEqual([]);
    ok(await bob.post('/messages/flags', { messages: [id], op: 'add', flag: 'read' }));
    ok(await carol.post('/messages/flags', { messages: [id], op: 'add', flag: 'read' }));
    // The sender is never listed.
    expect(expectResponse('GET /messages/{id}/read_receipts', await bob.get(`/messages/${id}/read_receipts`)).user_ids).toEqual([bob.userId!, carol.userId!].sort((a, b) => a - b));
    ok(await carol.patch('/settings', { send_read_receipts: false }));
    expect(expectResponse('GET /messages/{id}/read_receipts', await owner.get(`/messages/${id}/read_receipts`)).user_ids).toEqual([bob.userId]);
    ok(await carol.patch('/settings', { send_read_receipts: true }));
    // Muting hides the muted user's reads from the one who muted, and the other way round.
    ok(await owner.post(`/users/me/muted_users/${carol.userId}`));
    expect(expectResponse('GET /messages/{id}/read_receipts', await owner.get(`/messages/${id}/read_receipts`)).user_ids).toEqual([bob.userId]);
    expect(expectResponse('GET /messages/{id}/read_receipts', await carol.get(`/messages/${id}/read_receipts`)).user_ids).toEqual([bob.userId!, carol.userId!].sort((a, b) => a - b));
    ok(await owner.delete(`/users/me/muted_users/${carol.userId}`));
    const direct = ok(await bob.post('/messages', { type: 'direct', to: [owner.userId], content: 'between us' })).id;
    expectError(await dave.get(`/messages/${direct}/read_receipts`), 'Invalid message(s)');
  });
});

describe('POST /messages/{id}/report', () => {
  it('posts the report to the moderation request channel', async () => {
    const id = await send(bob, 'rude', 'something rude');
    expectError(await carol.post(`/messages/${id}/report`, { report_type: 'spam' }), 'Message reporting is not enabled in this organization.');
    ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'mod requests' }], invite_only: true }));
    const mods = ok(await owner.get('/get_stream_id', { stream: 'mod requests' })).stream_id;
    expectError(await carol.patch('/realm', { moderation_request_channel_id: mods }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    expectError(await owner.patch('/realm', { moderation_request_channel_id: channelId }), 'Moderation request channel must be private.');
    expectError(await owner.patch('/realm', { moderation_request_channel_id: 999999 }), 'Invalid channel ID');
    ok(await owner.patch('/realm', { moderation_request_channel_id: mods }));

    const q = await queueFor(owner);
    expectResponse('envelope only', await carol.post(`/messages/${id}/report`, { report_type: 'harassment', description: 'Not nice.' }));
    const [event] = await eventsOfType(owner, q, 'message');
    expect(event!.message).toMatchObject({ stream_id: mods, subject: "Bob Extra's moderation requests", sender_full_name: 'Notification Bot' });
    const raw = ok(await owner.get(`/messages/${event!.message.id}`, { apply_markdown: false })).message.content as string;
    expect(raw).toBe(
      `@_**Carol Extra|${carol.userId}** reported #**extras>rude@${id}** sent by @_**Bob Extra|${bob.userId}**.\n` +
        '- Reason: **harassment**\n- Notes:\n```quote\nNot nice.\n```\n' +
        // Zulip's template puts the mention inside the bold text; the stored message loses its final newline.
        `\`\`\` spoiler **Message sent by @_**Bob Extra|${bob.userId}****\nsomething rude\n\`\`\``,
    );
  });

  it('refuses bad reports', async () => {
    const id = await send(bob, 'rude', 'again');
    expectError(await carol.post(`/messages/${id}/report`, { report_type: 'other' }), 'An explanation is required.');
    expectError(await carol.post(`/messages/${id}/report`, { report_type: 'boring' }), 'Invalid report_type');
    expectError(await carol.post(`/messages/${id}/report`, { report_type: 'spam', description: 'x'.repeat(1001) }), 'description is too long (limit: 1000 characters)');
    const direct = ok(await bob.post('/messages', { type: 'direct', to: [owner.userId], content: 'between us' })).id;
    expectError(await dave.post(`/messages/${direct}/report`, { report_type: 'spam' }), 'Invalid message(s)');
  });
});

describe('POST /messages/{id}/typing', () => {
  it('tells the channel\'s subscribers that the sender is editing', async () => {
    const id = await send(bob, 'typing', 'draft');
    const q = await queueFor(carol);
    expectResponse('envelope only', await bob.post(`/messages/${id}/typing`, { op: 'start' }));
    const [event] = await eventsOfType(carol, q, 'typing_edit_message');
    expect(event).toEqual({
      type: 'typing_edit_message', id: expect.any(Number), op: 'start', sender_id: bob.userId, message_id: id,
      recipient: { type: 'channel', channel_id: channelId, topic: 'typing' },
    });
  });

  it('in a direct message, tells its participants', async () => {
    const id = ok(await bob.post('/messages', { type: 'direct', to: [carol.userId], content: 'hi' })).id;
    const q = await queueFor(carol);
    const outsider = await queueFor(dave);
    expectResponse('envelope only', await bob.post(`/messages/${id}/typing`, { op: 'stop' }));
    const [event] = await eventsOfType(carol, q, 'typing_edit_message');
    expect(event).toMatchObject({ op: 'stop', sender_id: bob.userId, message_id: id, recipient: { type: 'direct' } });
    expect([...event!.recipient.user_ids].sort()).toEqual([bob.userId, carol.userId].sort());
    expect(await eventsNow(dave, outsider)).toEqual([]);
  });

  it('is only for messages the caller may edit', async () => {
    const id = await send(bob, 'typing', 'mine');
    expectError(await carol.post(`/messages/${id}/typing`, { op: 'start' }), "You don't have permission to edit this message");
    const direct = ok(await bob.post('/messages', { type: 'direct', to: [owner.userId], content: 'between us' })).id;
    expectError(await dave.post(`/messages/${direct}/typing`, { op: 'start' }), 'Invalid message(s)');
    expectError(await bob.post(`/messages/${id}/typing`, { op: 'begin' }), 'Invalid op');
  });
});

describe('POST /streams/{id}/delete_topic', () => {
  it('deletes every message of the topic and tells the readers', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await send(bob, 'Doomed', `doomed ${i}`));
    const kept = await send(bob, 'kept', 'stays');
    expectError(await bob.post(`/streams/${channelId}/delete_topic`, { topic_name: 'doomed' }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
    expectError(await owner.post('/streams/999999/delete_topic', { topic_name: 'doomed' }), 'Invalid channel ID');
    expectError(await owner.post(`/streams/${channelId}/delete_topic`, {}), "Missing 'topic_name' argument", 'REQUEST_VARIABLE_MISSING');
    const q = await queueFor(carol, { client_capabilities: { bulk_message_deletion: true } });
    expect(expectResponse('POST /streams/{id}/delete_topic', await owner.post(`/streams/${channelId}/delete_topic`, { topic_name: 'doomed' }))).toEqual({ result: 'success', msg: '', complete: true });
    const deleted = (await eventsOfType(carol, q, 'delete_message')).flatMap((e) => e.message_ids);
    expect(deleted.sort()).toEqual([...ids].sort());
    for (const id of ids) expectError(await bob.get(`/messages/${id}`), 'Invalid message(s)');
    ok(await bob.get(`/messages/${kept}`));
    const topics = ok(await bob.get(`/users/me/${channelId}/topics`)).topics.map((t: { name: string }) => t.name);
    expect(topics).not.toContain('Doomed');
  });

  it('deletes a topic larger than one batch (100 messages) in one request', async () => {
    for (let i = 0; i < 105; i++) await send(owner, 'big topic', `message ${i}`);
    expect(expectResponse('POST /streams/{id}/delete_topic', await owner.post(`/streams/${channelId}/delete_topic`, { topic_name: 'big topic' })).complete).toBe(true);
    const left = ok(await owner.get('/messages', { anchor: 'newest', num_before: 200, num_after: 0, narrow: [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'big topic' }] }));
    expect(left.messages).toEqual([]);
  });
});

describe('PATCH /users/me/subscriptions', () => {
  it('joins and leaves channels in one request', async () => {
    const r = expectResponse('PATCH /users/me/subscriptions', await carol.patch('/users/me/subscriptions', { add: [{ name: 'fresh channel' }], delete: ['extras'] }));
    expect(r).toMatchObject({ subscribed: { [String(carol.userId)]: ['fresh channel'] }, already_subscribed: {}, removed: ['extras'], not_removed: [] });
    const mine = ok(await carol.get('/users/me/subscriptions')).subscriptions.map((s: { name: string }) => s.name);
    expect(mine).toEqual(['fresh channel']);
  });

  it('refuses an empty request and a channel to leave that does not exist, changing nothing', async () => {
    expectError(await carol.patch('/users/me/subscriptions', {}), 'Nothing to do. Specify at least one of "add" or "delete".');
    const r = await carol.patch('/users/me/subscriptions', { add: [{ name: 'never made' }], delete: ['no such channel'] });
    expectError(r, "Channel 'no such channel' does not exist", 'STREAM_DOES_NOT_EXIST');
    expect(r.body.stream).toBe('no such channel');
    expect((await carol.get('/get_stream_id', { stream: 'never made' })).status).toBe(400);
    // A private channel the caller may not join is refused, and leaving does not happen either.
    ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'closed room' }], invite_only: true }));
    const mine = async () => ok(await carol.get('/users/me/subscriptions')).subscriptions.map((s: { name: string }) => s.name);
    const before = await mine();
    const closed = await carol.patch('/users/me/subscriptions', { add: [{ name: 'closed room' }], delete: before });
    expect(closed.status, JSON.stringify(closed.body)).toBe(400);
    expect(closed.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    expect(await mine()).toEqual(before);
  });
});

describe('POST /mobile_push/test_notification without a push relay', () => {
  it('answers that the push service is not configured', async () => {
    const r = await bob.post('/mobile_push/test_notification');
    expectError(r, 'Server is not configured to use push notification service.', 'PUSH_SERVICE_NOT_CONFIGURED');
  });
});
