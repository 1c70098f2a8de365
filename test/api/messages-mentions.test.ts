// Mentions: the flags they set, the topics mentioned users follow, and the permission needed
// for wildcard mentions in large channels and topics.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, fetchMessages, register, sendToChannel } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let crowd: Client[];
let subdomain: string;
let smallId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('mmention'));
  [bob, carol] = await Promise.all([newUser(subdomain, 'Bob Builder'), newUser(subdomain, 'Carol Cook')]);
  crowd = await Promise.all(Array.from({ length: 15 }, (_, i) => newUser(subdomain, `Crowd Member ${String.fromCharCode(65 + i)}`)));
  smallId = await createChannel(owner, 'small', {}, [bob.userId!, carol.userId!]);
  // 18 subscribers: more than Zulip's threshold of 15.
  await createChannel(owner, 'large', {}, [bob.userId!, carol.userId!, ...crowd.map((c) => c.userId!)]);
}, 60_000);

describe('personal and group mentions', () => {
  it('flag the mentioned user, who follows the topic', async () => {
    const q = await register(carol, { event_types: ['message', 'user_topic'], apply_markdown: true });
    const id = await sendToChannel(bob, 'small', 'mentions', 'hey @**Carol Cook**, look');
    const evs = await events(carol, q.queueId);
    expect(evs.map((e) => e.type)).toEqual(['user_topic', 'message']);
    expect(evs[0]).toMatchObject({ stream_id: smallId, topic_name: 'mentions', visibility_policy: 3 });
    expect(evs[1]!.flags).toEqual(['mentioned']);
    expect(evs[1]!.message.content).toContain('class="user-mention"');
    const mentioned = await fetchMessages(carol, { narrow: [{ operator: 'is', operand: 'mentioned' }] });
    expect(mentioned.messages.map((m: { id: number }) => m.id)).toEqual([id]);
    const reg = await register(carol, { fetch_event_types: ['message', 'update_message_flags'] });
    expect(reg.body.unread_msgs.mentions).toEqual([id]);
    // Bob was not mentioned.
    expect((await fetchMessages(bob, { narrow: [{ operator: 'is', operand: 'mentioned' }] })).messages).toEqual([]);
  });

  it('a content edit that adds or removes a mention updates the flag', async () => {
    const id = await sendToChannel(bob, 'small', 'edited mention', 'no mention yet');
    expect((await bob.patch(`/messages/${id}`, { content: 'now @**Carol Cook**' })).status).toBe(200);
    expect((await carol.get(`/messages/${id}`)).body.message.flags).toContain('mentioned');
    expect((await bob.patch(`/messages/${id}`, { content: 'gone again' })).status).toBe(200);
    expect((await carol.get(`/messages/${id}`)).body.message.flags).not.toContain('mentioned');
  });

  it('a group mention flags the group members', async () => {
    const r = await owner.post('/user_groups/create', { name: 'cooks', description: 'kitchen', members: [carol.userId] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const q = await register(carol, { event_types: ['message'] });
    await sendToChannel(bob, 'small', 'groups', 'calling @*cooks*');
    expect((await events(carol, q.queueId, 'message'))[0]!.flags).toEqual(['mentioned']);
  });
});

describe('wildcard mentions', () => {
  it('in a small channel anyone may use them; every recipient is flagged', async () => {
    const q = await register(carol, { event_types: ['message'] });
    const id = await sendToChannel(bob, 'small', 'wild', 'attention @**all**');
    expect((await events(carol, q.queueId, 'message'))[0]!.flags).toEqual(['stream_wildcard_mentioned', 'wildcard_mentioned']);
    expect((await carol.get(`/messages/${id}`)).body.message.flags).toEqual(['stream_wildcard_mentioned', 'wildcard_mentioned']);
    expect((await fetchMessages(carol, { narrow: [{ operator: 'is', operand: 'mentioned' }] })).messages.map((m: { id: number }) => m.id)).toContain(id);
  });

  it('in a large channel they need can_mention_many_users_group', async () => {
    expectError(
      await bob.post('/messages', { type: 'stream', to: 'large', topic: 'wild', content: 'hello @**channel**' }),
      400,
      'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
      'You do not have permission to use channel wildcard mentions in this channel.',
    );
    await sendToChannel(owner, 'large', 'wild', 'hello @**everyone**');
  });

  it('a topic wildcard needs the permission once the topic has more than 15 participants', async () => {
    await sendToChannel(bob, 'large', 'busy', 'first');
    await sendToChannel(bob, 'large', 'busy', 'few participants: @**topic**');
    for (const c of crowd) await sendToChannel(c, 'large', 'busy', 'me too');
    expectError(
      await bob.post('/messages', { type: 'stream', to: 'large', topic: 'busy', content: 'everyone here @**topic**' }),
      400,
      'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
      'You do not have permission to use topic wildcard mentions in this topic.',
    );
    const q = await register(crowd[0]!, { event_types: ['message'] });
    await sendToChannel(owner, 'large', 'busy', 'admins may @**topic**');
    expect((await events(crowd[0]!, q.queueId, 'message'))[0]!.flags).toEqual(['topic_wildcard_mentioned', 'wildcard_mentioned']);
  });
});

describe('what the renderer finds', () => {
  it('links set has:link, /me sets is_me_message', async () => {
    const linked = await sendToChannel(bob, 'small', 'content kinds', 'see https://example.com/page');
    const me = await sendToChannel(bob, 'small', 'content kinds', '/me waves');
    const links = await fetchMessages(bob, { narrow: [['topic', 'content kinds'], ['has', 'link']] });
    expect(links.messages.map((m: { id: number }) => m.id)).toEqual([linked]);
    expect((await bob.get(`/messages/${me}`)).body.message.is_me_message).toBe(true);
  });
});
