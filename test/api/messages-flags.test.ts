// Message flags (read, starred), mark-as-read shortcuts, their events, and the message parts
// of POST /register (unread_msgs, starred_messages, recent_private_conversations, …).
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, fetchMessages, register, sendDirect, sendToChannel } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let dave: Client;
let subdomain: string;
let generalId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('mflags'));
  [bob, carol, dave] = await Promise.all([newUser(subdomain, 'Bob Builder'), newUser(subdomain, 'Carol Cook'), newUser(subdomain, 'Dave Diver')]);
  generalId = await createChannel(owner, 'general', {}, [bob.userId!, carol.userId!]);
});

async function flagsOf(client: Client, id: number): Promise<string[]> {
  const r = await client.get(`/messages/${id}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.message.flags;
}

describe('POST /messages/flags', () => {
  it('adds and removes read and starred, with events to the user only', async () => {
    const ids = [await sendToChannel(owner, 'general', 'flags', 'one'), await sendToChannel(owner, 'general', 'flags', 'two')];
    const bobQ = await register(bob, { event_types: ['update_message_flags'] });
    const carolQ = await register(carol, { event_types: ['update_message_flags'] });
    const r = await bob.post('/messages/flags', { messages: ids, op: 'add', flag: 'read' });
    expect(r.status).toBe(200);
    expect(r.body.messages).toEqual(ids);
    expect(await flagsOf(bob, ids[0]!)).toEqual(['read']);
    expect(await flagsOf(carol, ids[0]!)).toEqual([]);
    // Already read: nothing changes.
    expect((await bob.post('/messages/flags', { messages: ids, op: 'add', flag: 'read' })).body.messages).toEqual([]);
    await bob.post('/messages/flags', { messages: [ids[1]], op: 'add', flag: 'starred' });
    await bob.post('/messages/flags', { messages: [ids[1]], op: 'remove', flag: 'read' });
    expect(await flagsOf(bob, ids[1]!)).toEqual(['starred']);
    const evs = await events(bob, bobQ.queueId, 'update_message_flags');
    expect(evs.map((e) => [e.op, e.flag, e.messages, e.all])).toEqual([
      ['add', 'read', ids, false],
      ['add', 'starred', [ids[1]], false],
      ['remove', 'read', [ids[1]], false],
    ]);
    expect(evs[2]!.message_details[String(ids[1])]).toMatchObject({ type: 'stream', stream_id: generalId, topic: 'flags', unmuted_stream_msg: true });
    expect(await events(carol, carolQ.queueId, 'update_message_flags')).toEqual([]);
  });

  it('refuses unknown and non-editable flags, bad operations and unreadable messages', async () => {
    const id = await sendToChannel(owner, 'general', 'flags', 'three');
    expectError(await bob.post('/messages/flags', { messages: [id], op: 'add', flag: 'shiny' }), 400, 'BAD_REQUEST', "Invalid flag: 'shiny'");
    expectError(await bob.post('/messages/flags', { messages: [id], op: 'add', flag: 'mentioned' }), 400, 'BAD_REQUEST', "Flag not editable: 'mentioned'");
    expectError(await bob.post('/messages/flags', { messages: [id], op: 'toggle', flag: 'read' }), 400, 'BAD_REQUEST', "Invalid message flag operation: 'toggle'");
    expectError(await bob.post('/messages/flags', { messages: [id, 999999999], op: 'add', flag: 'read' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    const dm = await sendDirect(owner, [carol.userId!], 'private');
    expectError(await bob.post('/messages/flags', { messages: [dm], op: 'add', flag: 'starred' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  });

  it('stars a message the user can read but did not receive (historical)', async () => {
    const id = await sendToChannel(owner, 'general', 'history', 'dave never subscribed');
    expect(await flagsOf(dave, id)).toEqual(['read', 'historical']);
    expect((await dave.post('/messages/flags', { messages: [id], op: 'add', flag: 'starred' })).status).toBe(200);
    expect(await flagsOf(dave, id)).toEqual(['read', 'starred', 'historical']);
    const reg = await register(dave, { fetch_event_types: ['starred_messages', 'message', 'update_message_flags'] });
    expect(reg.body.starred_messages).toEqual([id]);
    expect(reg.body.unread_msgs.count).toBe(0);
  });

  it('applies a flag over a narrow', async () => {
    const ids = [await sendToChannel(owner, 'general', 'narrowed', 'a'), await sendToChannel(owner, 'general', 'narrowed', 'b')];
    const r = await carol.post('/messages/flags/narrow', {
      anchor: 'oldest',
      num_before: 0,
      num_after: 100,
      narrow: [{ operator: 'topic', operand: 'narrowed' }],
      op: 'add',
      flag: 'read',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ processed_count: 2, updated_count: 2, first_processed_id: ids[0], last_processed_id: ids[1], found_newest: true });
    expect(await flagsOf(carol, ids[1]!)).toContain('read');
  });
});

describe('alert words', () => {
  it('flag messages containing a recipient word (not the sender\'s own), found by is:alerted', async () => {
    expect((await carol.post('/users/me/alert_words', { alert_words: ['pineapple'] })).status).toBe(200);
    const q = await register(carol, { event_types: ['message'] });
    const hit = await sendToChannel(bob, 'general', 'fruit', 'I like Pineapple, really');
    await sendToChannel(bob, 'general', 'fruit', 'pineapples do not count');
    const own = await sendToChannel(carol, 'general', 'fruit', 'my own pineapple');
    const evs = await events(carol, q.queueId, 'message');
    expect(evs[0]!.flags).toEqual(['has_alert_word']);
    expect(evs[1]!.flags).toEqual([]);
    expect(await flagsOf(carol, own)).not.toContain('has_alert_word');
    const alerted = await fetchMessages(carol, { narrow: [{ operator: 'is', operand: 'alerted' }] });
    expect(alerted.messages.map((m: { id: number }) => m.id)).toEqual([hit]);
    expect(await flagsOf(bob, hit)).not.toContain('has_alert_word');
  });
});

describe('mark as read', () => {
  it('all, a channel, a topic', async () => {
    const { owner: o, subdomain: sub } = await newRealm('mflagsread');
    const reader = await newUser(sub, 'Rita Reader');
    const a = await createChannel(o, 'alpha', {}, [reader.userId!]);
    const b = await createChannel(o, 'beta', {}, [reader.userId!]);
    const ids = {
      a1: await sendToChannel(o, 'alpha', 'x', '1'),
      a2: await sendToChannel(o, 'alpha', 'y', '2'),
      b1: await sendToChannel(o, 'beta', 'x', '3'),
      dm: await sendDirect(o, [reader.userId!], '4'),
    };
    const q = await register(reader, { event_types: ['update_message_flags'] });
    const unread = async () => (await register(reader, { fetch_event_types: ['message', 'update_message_flags'] })).body.unread_msgs;
    expect((await unread()).count).toBe(4);
    expect((await reader.post('/mark_topic_as_read', { stream_id: a, topic_name: 'x' })).status).toBe(200);
    expect((await unread()).count).toBe(3);
    expectError(await reader.post('/mark_topic_as_read', { stream_id: a, topic_name: 'nothing here' }), 400, 'BAD_REQUEST', "No such topic 'nothing here'");
    expect((await reader.post('/mark_stream_as_read', { stream_id: b })).status).toBe(200);
    expect((await unread()).count).toBe(2);
    expectError(await reader.post('/mark_stream_as_read', { stream_id: 999999 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    const all = await reader.post('/mark_all_as_read');
    expect(all.status).toBe(200);
    expect(all.body.complete).toBe(true);
    expect((await unread()).count).toBe(0);
    const evs = await events(reader, q.queueId, 'update_message_flags');
    expect(evs.map((e) => e.messages)).toEqual([[ids.a1], [ids.b1], [ids.a2, ids.dm]]);
  });
});

describe('register', () => {
  it('reports unread messages by channel and topic, direct and group conversations', async () => {
    const { owner: o, subdomain: sub } = await newRealm('mflagsreg');
    const [u, v] = await Promise.all([newUser(sub, 'Una User'), newUser(sub, 'Vic User')]);
    const channel = await createChannel(o, 'room', {}, [u.userId!]);
    // Messages before a subscription were not received: they are not unread.
    await createChannel(o, 'later');
    await sendToChannel(o, 'later', 't', 'before u joined');
    expect((await o.post('/users/me/subscriptions', { subscriptions: [{ name: 'later' }], principals: [u.userId], send_new_subscription_messages: false })).status).toBe(200);
    const s1 = await sendToChannel(o, 'room', 'first', 'x');
    const s2 = await sendToChannel(o, 'room', '', 'y');
    const pm = await sendDirect(o, [u.userId!], 'z');
    const group = await sendDirect(v, [u.userId!, o.userId!], 'w');
    const mine = await sendDirect(u, [v.userId!], 'sent by u', { read_by_sender: true });
    const body = (await register(u, { fetch_event_types: ['message', 'update_message_flags', 'recent_private_conversations'] })).body;
    expect(body.max_message_id).toBeGreaterThanOrEqual(mine);
    const unread = body.unread_msgs;
    expect(unread.count).toBe(4);
    expect(unread.old_unreads_missing).toBe(false);
    expect(unread.streams).toEqual([
      { stream_id: channel, topic: 'first', unread_message_ids: [s1] },
      { stream_id: channel, topic: 'general chat', unread_message_ids: [s2] },
    ]);
    expect(unread.pms).toEqual([{ other_user_id: o.userId, sender_id: o.userId, unread_message_ids: [pm] }]);
    expect(unread.huddles).toEqual([{ user_ids_string: [o.userId, u.userId, v.userId].sort((x, y) => x! - y!).join(','), unread_message_ids: [group] }]);
    expect(unread.mentions).toEqual([]);
    expect(body.recent_private_conversations).toEqual([
      { max_message_id: mine, user_ids: [v.userId] },
      { max_message_id: group, user_ids: [o.userId, v.userId].sort((x, y) => x! - y!) },
      { max_message_id: pm, user_ids: [o.userId] },
    ]);
    const withCapability = (await register(u, { fetch_event_types: ['message', 'update_message_flags'], client_capabilities: { empty_topic_name: true } })).body;
    // Sorted by channel and topic, as Zulip does: the empty topic comes first.
    expect(withCapability.unread_msgs.streams.map((s: { topic: string }) => s.topic)).toEqual(['', 'first']);
    // Without `message` among the fetched types there is no unread_msgs.
    expect((await register(u, { fetch_event_types: ['update_message_flags'] })).body.unread_msgs).toBeUndefined();
    const fetched = await fetchMessages(u, { narrow: [{ operator: 'is', operand: 'unread' }] });
    expect(fetched.messages.map((m: { id: number }) => m.id)).toEqual([s1, s2, pm, group]);
  });
});
