// POST /messages: addressing forms, topic and content rules, sending permissions, the
// sender-side options (read_by_sender, local echo, idempotency) and the automatic topic policy.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import {
  createChannel,
  events,
  expectError,
  fetchMessages,
  patchRealm,
  register,
  sendDirect,
  sendToChannel,
  systemGroupId,
} from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let subdomain: string;
let generalId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('msend'));
  bob = await newUser(subdomain, 'Bob Builder');
  carol = await newUser(subdomain, 'Carol Cook');
  guest = await newUser(subdomain, 'Gus Guest', 600);
  generalId = await createChannel(owner, 'general', {}, [bob.userId!, carol.userId!]);
});

async function lastMessage(client: Client, params: Record<string, unknown> = {}) {
  const body = await fetchMessages(client, { num_before: 1, ...params });
  return body.messages.at(-1);
}

describe('addressing a channel', () => {
  it('accepts the channel by name, by id, as a JSON list of one, with type stream or channel', async () => {
    const forms = [
      { type: 'stream', to: 'general' },
      { type: 'channel', to: String(generalId) },
      { type: 'stream', to: JSON.stringify(['general']) },
      { type: 'channel', to: JSON.stringify([generalId]) },
      { type: 'stream', to: 'GENERAL' },
    ];
    for (const form of forms) {
      const r = await bob.post('/messages', { ...form, topic: 'forms', content: `via ${form.to}` });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const m = await lastMessage(bob);
      expect(m).toMatchObject({ id: r.body.id, stream_id: generalId, display_recipient: 'general', subject: 'forms', type: 'stream' });
    }
  });

  it('takes subject as an alias of topic, and refuses both at once', async () => {
    const id = await sendToChannel(bob, 'general', '', 'x', { topic: undefined, subject: 'aliased' });
    expect((await lastMessage(bob)).id).toBe(id);
    expect((await lastMessage(bob)).subject).toBe('aliased');
    const r = await bob.post('/messages', { type: 'stream', to: 'general', topic: 'a', subject: 'b', content: 'x' });
    expectError(r, 400, 'REQUEST_CONFUSING_VAR', "Can't decide between 'topic' and 'subject' arguments");
  });

  it('reports a missing channel with its name or id', async () => {
    const r = await bob.post('/messages', { type: 'stream', to: 'nowhere', topic: 't', content: 'x' });
    expectError(r, 400, 'STREAM_DOES_NOT_EXIST', "Channel 'nowhere' does not exist");
    expect(r.body.stream).toBe('nowhere');
    const byId = await bob.post('/messages', { type: 'stream', to: '999999', topic: 't', content: 'x' });
    expectError(byId, 400, 'STREAM_DOES_NOT_EXIST');
    expect(byId.body.stream_id).toBe(999999);
    const many = await bob.post('/messages', { type: 'stream', to: JSON.stringify(['general', 'other']), topic: 't', content: 'x' });
    expectError(many, 400, 'BAD_REQUEST', 'Cannot send to multiple channels');
  });

  it('refuses an unknown type and a missing topic', async () => {
    expectError(await bob.post('/messages', { type: 'broadcast', to: 'general', topic: 't', content: 'x' }), 400, 'BAD_REQUEST', 'Invalid message type');
    expectError(await bob.post('/messages', { type: 'stream', to: 'general', content: 'x' }), 400, 'BAD_REQUEST', 'Missing topic');
    expectError(await bob.post('/messages', { type: 'stream', to: 'general', topic: 't' }), 400, 'REQUEST_VARIABLE_MISSING');
  });
});

describe('content and topic rules', () => {
  it('refuses empty content and truncates content past 10000 code points', async () => {
    expectError(await bob.post('/messages', { type: 'stream', to: 'general', topic: 't', content: '  \n ' }), 400, 'BAD_REQUEST', 'Message must not be empty');
    await sendToChannel(bob, 'general', 'long', '😀'.repeat(10005));
    const m = await lastMessage(bob, { apply_markdown: false });
    expect([...m.content].length).toBe(10000);
    expect(m.content.endsWith('\n[message truncated]')).toBe(true);
  });

  it('truncates topics past 60 characters and refuses control characters', async () => {
    await sendToChannel(bob, 'general', 'x'.repeat(70), 'long topic');
    expect((await lastMessage(bob)).subject).toBe('x'.repeat(57) + '...');
    expectError(await bob.post('/messages', { type: 'stream', to: 'general', topic: 'a\u0007b', content: 'x' }), 400, 'BAD_REQUEST', /Invalid character in topic/);
  });

  it('maps "(no topic)" and the empty-topic display name to the empty topic', async () => {
    for (const topic of ['(no topic)', 'general chat', '']) {
      await sendToChannel(bob, 'general', topic, `empty via ${JSON.stringify(topic)}`);
      expect((await lastMessage(bob, { allow_empty_topic_name: true })).subject).toBe('');
      expect((await lastMessage(bob)).subject).toBe('general chat');
    }
  });

  it('follows the channel topics policy and the organization default', async () => {
    await createChannel(owner, 'strict', { topics_policy: 'disable_empty_topic' }, [bob.userId!]);
    expectError(
      await bob.post('/messages', { type: 'stream', to: 'strict', topic: '', content: 'x' }),
      400,
      'BAD_REQUEST',
      'Sending messages to the general chat topic is not allowed in this channel.',
    );
    await sendToChannel(bob, 'strict', 'named', 'fine');
    await createChannel(owner, 'chatty', { topics_policy: 'empty_topic_only' }, [bob.userId!]);
    expectError(
      await bob.post('/messages', { type: 'stream', to: 'chatty', topic: 'named', content: 'x' }),
      400,
      'BAD_REQUEST',
      'Only the general chat topic is allowed in this channel.',
    );
    await sendToChannel(bob, 'chatty', '', 'fine');
    await createChannel(owner, 'inherits', {}, [bob.userId!]);
    await patchRealm(owner, { topics_policy: 'disable_empty_topic' });
    expectError(await bob.post('/messages', { type: 'stream', to: 'inherits', topic: '(no topic)', content: 'x' }), 400, 'BAD_REQUEST');
    await patchRealm(owner, { topics_policy: 'allow_empty_topic' });
    await sendToChannel(bob, 'inherits', '', 'allowed again');
  });
});

describe('who may send to a channel', () => {
  it('refuses private channels to non-subscribers and archived channels to everyone', async () => {
    await createChannel(owner, 'secret', { invite_only: true });
    expectError(await bob.post('/messages', { type: 'stream', to: 'secret', topic: 't', content: 'x' }), 400, 'BAD_REQUEST', "Not authorized to send to channel 'secret'");
    const oldId = await createChannel(owner, 'old', {}, [bob.userId!]);
    expect((await owner.delete(`/streams/${oldId}`)).status).toBe(200);
    expectError(await bob.post('/messages', { type: 'stream', to: 'old', topic: 't', content: 'x' }), 400, 'BAD_REQUEST', "Not authorized to send to channel 'old'");
  });

  it('lets guests post only where they are subscribed', async () => {
    await createChannel(owner, 'lobby');
    expectError(await guest.post('/messages', { type: 'stream', to: 'lobby', topic: 't', content: 'x' }), 400, 'BAD_REQUEST');
    await createChannel(owner, 'guests', {}, [guest.userId!]);
    await sendToChannel(guest, 'guests', 't', 'hello from a guest');
  });

  it('honours the channel can_send_message_group', async () => {
    const admins = await systemGroupId(owner, 'role:administrators');
    await createChannel(owner, 'announce', { can_send_message_group: admins }, [bob.userId!]);
    expectError(await bob.post('/messages', { type: 'stream', to: 'announce', topic: 't', content: 'x' }), 400, 'BAD_REQUEST', 'You do not have permission to post in this channel.');
    await sendToChannel(owner, 'announce', 't', 'admins may');
  });
});

describe('direct messages', () => {
  it('accepts user ids, emails, comma-separated emails, and type private', async () => {
    const a = await sendDirect(bob, [carol.userId!], 'by id');
    const b = await bob.post('/messages', { type: 'private', to: JSON.stringify([carol.email]), content: 'by email' });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    const c = await bob.post('/messages', { type: 'direct', to: `${carol.email},${owner.email}`, content: 'legacy list' });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const dms = await fetchMessages(carol, { narrow: [{ operator: 'is', operand: 'dm' }] });
    const ids = dms.messages.map((m: { id: number }) => m.id);
    expect(ids).toEqual(expect.arrayContaining([a, b.body.id, c.body.id]));
    const group = dms.messages.find((m: { id: number }) => m.id === c.body.id);
    expect(group.type).toBe('private');
    expect(group.display_recipient.map((u: { id: number }) => u.id)).toEqual([owner.userId, bob.userId, carol.userId].sort((x, y) => x! - y!));
    expect(group.subject).toBe('');
  });

  it('sends to oneself', async () => {
    const id = await sendDirect(bob, [bob.userId!], 'note to self');
    const m = await lastMessage(bob, { narrow: [{ operator: 'dm', operand: [bob.userId] }] });
    expect(m.id).toBe(id);
    expect(m.display_recipient.map((u: { id: number }) => u.id)).toEqual([bob.userId]);
  });

  it('refuses bad recipients', async () => {
    expectError(await bob.post('/messages', { type: 'direct', to: '[99999]', content: 'x' }), 400, 'BAD_REQUEST', 'Invalid user ID 99999');
    expectError(await bob.post('/messages', { type: 'direct', to: '["nobody@example.com"]', content: 'x' }), 400, 'BAD_REQUEST', "Invalid email 'nobody@example.com'");
    expectError(await bob.post('/messages', { type: 'direct', to: '[]', content: 'x' }), 400, 'BAD_REQUEST', 'Message must have recipients');
    expectError(
      await bob.post('/messages', { type: 'direct', to: JSON.stringify([carol.userId, carol.email]), content: 'x' }),
      400,
      'BAD_REQUEST',
      'Recipient lists may contain emails or user IDs, but not both.',
    );
  });

  it('follows the direct message permission and initiator groups', async () => {
    const { owner: o2, subdomain: sub2 } = await newRealm('mdmperm');
    const u1 = await newUser(sub2, 'Una User');
    const u2 = await newUser(sub2, 'Vic User');
    const nobody = await systemGroupId(o2, 'role:nobody');
    const admins = await systemGroupId(o2, 'role:administrators');
    await patchRealm(o2, { direct_message_permission_group: { new: nobody } });
    expectError(await u1.post('/messages', { type: 'direct', to: `[${u2.userId}]`, content: 'x' }), 400, 'BAD_REQUEST', 'Direct messages are disabled in this organization.');
    // Messages to oneself are always allowed.
    await sendDirect(u1, [u1.userId!], 'self is fine');
    await patchRealm(o2, { direct_message_permission_group: { new: admins } });
    expectError(await u1.post('/messages', { type: 'direct', to: `[${u2.userId}]`, content: 'x' }), 400, 'BAD_REQUEST', 'This conversation does not include any users who can authorize it.');
    // A conversation including an administrator is authorized by them.
    await sendDirect(u1, [o2.userId!], 'to the admin');
    await patchRealm(o2, { direct_message_permission_group: { new: await systemGroupId(o2, 'role:everyone') }, direct_message_initiator_group: { new: admins } });
    expectError(await u1.post('/messages', { type: 'direct', to: `[${u2.userId}]`, content: 'x' }), 400, 'BAD_REQUEST', 'You do not have permission to initiate direct message conversations.');
    await sendDirect(o2, [u1.userId!, u2.userId!], 'the admin starts it');
    await sendDirect(u1, [o2.userId!, u2.userId!], 'u1 may reply in an existing conversation');
  });
});

describe('guests and direct messages', () => {
  it('reach only users they can see when the organization limits what guests see', async () => {
    const { owner: o, subdomain: sub } = await newRealm('mguestdm');
    const [g, near, far] = await Promise.all([newUser(sub, 'Gwen Guest', 600), newUser(sub, 'Nina Near'), newUser(sub, 'Fred Far')]);
    await createChannel(o, 'shared', {}, [g.userId!, near.userId!]);
    await patchRealm(o, { can_access_all_users_group: { new: await systemGroupId(o, 'role:members') } });
    await sendDirect(g, [near.userId!], 'we share a channel');
    expectError(
      await g.post('/messages', { type: 'direct', to: `[${far.userId}]`, content: 'x' }),
      400,
      'BAD_REQUEST',
      'You do not have permission to access some of the recipients.',
    );
    // Once Fred writes to her, they share a conversation and she may answer.
    await sendDirect(far, [g.userId!], 'hello guest');
    await sendDirect(g, [far.userId!], 'hello Fred');
  });
});

describe('sender options', () => {
  it('marks the message read for the sender from UI clients, unread from API clients, or as asked', async () => {
    const ui = await bob.post('/messages', { type: 'stream', to: 'general', topic: 'rbs', content: 'from the app' }, { 'User-Agent': 'ZulipMobile/27.1 (Android 14)' });
    const api = await bob.post('/messages', { type: 'stream', to: 'general', topic: 'rbs', content: 'from a script' }, { 'User-Agent': 'ZulipPython/0.9.0' });
    const asked = await bob.post('/messages', { type: 'stream', to: 'general', topic: 'rbs', content: 'explicit', read_by_sender: true }, { 'User-Agent': 'ZulipPython/0.9.0' });
    const body = await fetchMessages(bob, { narrow: [{ operator: 'topic', operand: 'rbs' }] });
    const flags = new Map(body.messages.map((m: { id: number; flags: string[] }) => [m.id, m.flags]));
    expect(flags.get(ui.body.id)).toContain('read');
    expect(flags.get(api.body.id)).not.toContain('read');
    expect(flags.get(asked.body.id)).toContain('read');
    const m = body.messages.find((x: { id: number }) => x.id === ui.body.id);
    expect(m.client).toBe('ZulipMobile');
  });

  it('returns local_id as local_message_id to the sending queue only', async () => {
    const mine = await register(bob, { event_types: ['message'] });
    const other = await register(bob, { event_types: ['message'] });
    const carols = await register(carol, { event_types: ['message'] });
    await sendToChannel(bob, 'general', 'echo', 'local echo', { queue_id: mine.queueId, local_id: '17.01' });
    expect((await events(bob, mine.queueId, 'message'))[0]!.local_message_id).toBe('17.01');
    expect((await events(bob, other.queueId, 'message'))[0]!.local_message_id).toBeUndefined();
    expect((await events(carol, carols.queueId, 'message'))[0]!.local_message_id).toBeUndefined();
    expectError(await bob.post('/messages', { type: 'stream', to: 'general', topic: 'echo', content: 'x', queue_id: mine.queueId }), 400, 'REQUEST_VARIABLE_MISSING');
  });

  it('follows a topic the sender starts, once, with a user_topic event', async () => {
    const q = await register(carol, { event_types: ['user_topic'] });
    const first = await carol.post('/messages', { type: 'stream', to: 'general', topic: 'carol starts', content: 'x' });
    expect(first.body.automatic_new_visibility_policy).toBe(3);
    const evs = await events(carol, q.queueId, 'user_topic');
    expect(evs).toEqual([expect.objectContaining({ stream_id: generalId, topic_name: 'carol starts', visibility_policy: 3 })]);
    const second = await carol.post('/messages', { type: 'stream', to: 'general', topic: 'carol starts', content: 'y' });
    expect(second.body.automatic_new_visibility_policy).toBeUndefined();
    const joined = await bob.post('/messages', { type: 'stream', to: 'general', topic: 'carol starts', content: 'z' });
    expect(joined.body.automatic_new_visibility_policy).toBeUndefined();
    const reg = await register(carol, { fetch_event_types: ['user_topic'] });
    expect(reg.body.user_topics).toEqual([expect.objectContaining({ stream_id: generalId, topic_name: 'carol starts', visibility_policy: 3 })]);
  });

  it('returns the first result for a retried Idempotency-Key and creates nothing new', async () => {
    const key = { 'Idempotency-Key': `k-${Date.now()}` };
    const params = { type: 'stream', to: 'general', topic: 'idem', content: 'exactly once' };
    const [a, b] = await Promise.all([bob.post('/messages', params, key), bob.post('/messages', params, key)]);
    const c = await bob.post('/messages', params, key);
    expect(a.status).toBe(200);
    expect(b.body.id).toBe(a.body.id);
    expect(c.body.id).toBe(a.body.id);
    const body = await fetchMessages(bob, { narrow: [{ operator: 'topic', operand: 'idem' }] });
    expect(body.messages).toHaveLength(1);
    // Another user's identical key is another send.
    const d = await carol.post('/messages', params, key);
    expect(d.body.id).not.toBe(a.body.id);
  });
});
