// The `message` event: who receives it (and who does not), and its shape per client.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, register, sendDirect, sendToChannel } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let dave: Client;
let guest: Client;
let subdomain: string;
let generalId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('mevents'));
  [bob, carol, dave, guest] = await Promise.all([
    newUser(subdomain, 'Bob Builder'),
    newUser(subdomain, 'Carol Cook'),
    newUser(subdomain, 'Dave Diver'),
    newUser(subdomain, 'Gus Guest', 600),
  ]);
  generalId = await createChannel(owner, 'general', {}, [bob.userId!, carol.userId!, guest.userId!]);
  await createChannel(owner, 'hidden', { invite_only: true }, [bob.userId!]);
});

describe('who receives a message event', () => {
  it('channel subscribers do; others do not', async () => {
    const queues = await Promise.all([bob, carol, dave, guest].map((c) => register(c, { event_types: ['message'] })));
    const id = await sendToChannel(owner, 'general', 'audience', 'to the channel');
    const got = await Promise.all([bob, carol, dave, guest].map((c, i) => events(c, queues[i]!.queueId, 'message')));
    expect(got.map((evs) => evs.map((e) => e.message.id))).toEqual([[id], [id], [], [id]]);
  });

  it('a private channel reaches its subscribers only, administrators included', async () => {
    const ownerQ = await register(owner, { event_types: ['message'] });
    const carolQ = await register(carol, { event_types: ['message'] });
    const bobQ = await register(bob, { event_types: ['message'] });
    await createChannel(owner, 'owners-out', { invite_only: true }, [bob.userId!]);
    const r = await owner.delete('/users/me/subscriptions', { subscriptions: ['owners-out'] });
    expect(r.status).toBe(200);
    const id = await sendToChannel(bob, 'owners-out', 't', 'private words');
    expect((await events(bob, bobQ.queueId, 'message')).map((e) => e.message.id)).toContain(id);
    expect((await events(owner, ownerQ.queueId, 'message')).map((e) => e.message.id)).not.toContain(id);
    expect((await events(carol, carolQ.queueId, 'message')).map((e) => e.message.id)).not.toContain(id);
  });

  it('a direct message reaches its participants only', async () => {
    const queues = await Promise.all([bob, carol, dave].map((c) => register(c, { event_types: ['message'] })));
    const id = await sendDirect(bob, [carol.userId!], 'just us');
    const got = await Promise.all([bob, carol, dave].map((c, i) => events(c, queues[i]!.queueId, 'message')));
    expect(got.map((evs) => evs.map((e) => e.message.id))).toEqual([[id], [id], []]);
    expect(got[1]![0]!.message).toMatchObject({ type: 'private', sender_id: bob.userId, subject: '' });
    expect(got[1]![0]!.flags).toEqual([]);
  });

  it('queues with all_public_streams get public channels with no flags, never private ones', async () => {
    const q = await register(dave, { event_types: ['message'], all_public_streams: true });
    const pub = await sendToChannel(owner, 'general', 'all public', 'public');
    const priv = await sendToChannel(bob, 'hidden', 'all public', 'private');
    const evs = await events(dave, q.queueId, 'message');
    expect(evs.map((e) => e.message.id)).toEqual([pub]);
    expect(evs[0]!.flags).toEqual([]);
    expect(priv).toBeGreaterThan(pub);
  });

  it('guests cannot register for all public channels (CVE-2021-30479)', async () => {
    const r = await guest.post('/register', { event_types: ['message'], all_public_streams: true });
    expectError(r, 400, 'BAD_REQUEST');
    const plain = await register(guest, { event_types: ['message'] });
    await createChannel(owner, 'not-for-guests');
    await sendToChannel(owner, 'not-for-guests', 't', 'members only');
    expect(await events(guest, plain.queueId, 'message')).toEqual([]);
  });

  it('narrowed queues receive only matching messages', async () => {
    const q = await register(bob, { event_types: ['message'], narrow: [['stream', 'hidden']] });
    await sendToChannel(owner, 'general', 'n', 'elsewhere');
    const id = await sendToChannel(bob, 'hidden', 'n', 'here');
    expect((await events(bob, q.queueId, 'message')).map((e) => e.message.id)).toEqual([id]);
  });
});

describe('the shape of a message event', () => {
  it('follows apply_markdown, client_gravatar and the empty_topic_name capability', async () => {
    const html = await register(carol, { event_types: ['message'], apply_markdown: true, client_gravatar: true });
    const raw = await register(carol, {
      event_types: ['message'],
      apply_markdown: false,
      client_gravatar: false,
      client_capabilities: { empty_topic_name: true },
    });
    const id = await sendToChannel(bob, 'general', '', 'some *text*');
    const [h] = await events(carol, html.queueId, 'message');
    const [r] = await events(carol, raw.queueId, 'message');
    expect(h!.message).toMatchObject({
      id,
      content_type: 'text/html',
      subject: 'general chat',
      avatar_url: null,
      stream_id: generalId,
      display_recipient: 'general',
      sender_email: bob.email,
      sender_full_name: 'Bob Builder',
      sender_realm_str: subdomain,
      type: 'stream',
      reactions: [],
      submessages: [],
      is_me_message: false,
    });
    expect(h!.message.content).toContain('<p>');
    expect(h!.message.flags).toBeUndefined();
    expect(r!.message).toMatchObject({ id, content: 'some *text*', content_type: 'text/x-markdown', subject: '' });
    expect(typeof r!.message.avatar_url).toBe('string');
  });

  it('carries the sender its own flags', async () => {
    const q = await register(bob, { event_types: ['message'] });
    await bob.post('/messages', { type: 'stream', to: 'general', topic: 'f', content: 'mine', read_by_sender: true });
    const [e] = await events(bob, q.queueId, 'message');
    expect(e!.flags).toEqual(['read']);
  });
});
