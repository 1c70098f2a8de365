// Reading messages: GET /messages anchors and narrows, GET /messages/{id}, matches_narrow,
// and who may read what (public history, protected history, guests).
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, expectError, fetchMessages, idsIn, sendDirect, sendToChannel, subscribe, unsubscribe } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let subdomain: string;
let generalId: number;
let ids: number[];

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('mread'));
  [bob, carol, guest] = await Promise.all([newUser(subdomain, 'Bob Builder'), newUser(subdomain, 'Carol Cook'), newUser(subdomain, 'Gus Guest', 600)]);
  generalId = await createChannel(owner, 'general', {}, [bob.userId!, carol.userId!]);
  await createChannel(owner, 'random', {}, [bob.userId!]);
  ids = [];
  for (let i = 0; i < 10; i++) ids.push(await sendToChannel(owner, 'general', i % 2 ? 'odd' : 'even', `message number ${i}`));
});

const general = [{ operator: 'channel', operand: 'general' }];

describe('anchors', () => {
  it('newest and oldest', async () => {
    const newest = await fetchMessages(bob, { narrow: general, anchor: 'newest', num_before: 3 });
    expect(newest.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(7));
    expect(newest).toMatchObject({ found_newest: true, found_oldest: false, found_anchor: false, history_limited: false });
    const oldest = await fetchMessages(bob, { narrow: general, anchor: 'oldest', num_before: 0, num_after: 3 });
    expect(oldest.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(0, 3));
    expect(oldest).toMatchObject({ found_oldest: true, found_newest: false, anchor: 0 });
  });

  it('a message id, with and without the anchor', async () => {
    const around = await fetchMessages(bob, { narrow: general, anchor: String(ids[5]), num_before: 2, num_after: 2 });
    expect(around.messages.map((m: { id: number }) => m.id)).toEqual(ids.slice(3, 8));
    expect(around).toMatchObject({ anchor: ids[5], found_anchor: true, found_oldest: false, found_newest: false });
    const without = await fetchMessages(bob, { narrow: general, anchor: ids[5], num_before: 2, num_after: 2, include_anchor: false });
    expect(without.messages.map((m: { id: number }) => m.id)).toEqual([ids[3], ids[4], ids[6], ids[7]]);
    expect(without.found_anchor).toBe(false);
    const all = await fetchMessages(bob, { narrow: general, anchor: ids[5], num_before: 20, num_after: 20 });
    expect(all).toMatchObject({ found_oldest: true, found_newest: true });
  });

  it('first_unread', async () => {
    const r = await bob.post('/messages/flags', { messages: ids.slice(0, 4), op: 'add', flag: 'read' });
    expect(r.status).toBe(200);
    const body = await fetchMessages(bob, { narrow: general, anchor: 'first_unread', num_before: 0, num_after: 1 });
    expect(body.anchor).toBe(ids[4]);
    expect(body.messages.map((m: { id: number }) => m.id)).toEqual([ids[4], ids[5]]);
    // Nothing unread: like newest.
    const none = await fetchMessages(owner, { narrow: [{ operator: 'channel', operand: 'random' }], anchor: 'first_unread', num_before: 5, num_after: 5 });
    expect(none.found_newest).toBe(true);
  });

  it('refuses bad anchors and too many messages', async () => {
    expectError(await bob.get('/messages', { anchor: 'sideways', num_before: 1, num_after: 1 }), 400, 'BAD_REQUEST');
    expectError(await bob.get('/messages', { num_before: 1, num_after: 1 }), 400, 'BAD_REQUEST', "Missing 'anchor' argument");
    expectError(await bob.get('/messages', { anchor: 'newest', num_before: 4000, num_after: 1001 }), 400, 'BAD_REQUEST', 'Too many messages requested (maximum 5000).');
  });

  it('message_ids returns just those messages the user may read', async () => {
    const body = await fetchMessages(bob, { message_ids: [ids[1], ids[2], 999999999] });
    expect(body.messages.map((m: { id: number }) => m.id)).toEqual([ids[1], ids[2]]);
    expect(body.anchor).toBeUndefined();
  });
});

describe('narrows', () => {
  it('channel by name or id, topic, sender, negation', async () => {
    expect(await idsIn(bob, [{ operator: 'stream', operand: generalId }])).toEqual(ids);
    expect(await idsIn(bob, [...general, { operator: 'topic', operand: 'ODD' }])).toEqual(ids.filter((_, i) => i % 2));
    expect(await idsIn(bob, [...general, { operator: 'topic', operand: 'odd', negated: true }])).toEqual(ids.filter((_, i) => i % 2 === 0));
    expect(await idsIn(bob, [['channel', 'general'], ['sender', owner.email]])).toEqual(ids);
    expect(await idsIn(bob, [['channel', 'general'], ['sender', bob.userId]])).toEqual([]);
    expect(await idsIn(bob, [{ operator: 'id', operand: ids[3] }])).toEqual([ids[3]]);
  });

  it('direct messages: dm, dm-including, is:dm, and legacy names', async () => {
    const a = await sendDirect(bob, [carol.userId!], 'bob to carol');
    const b = await sendDirect(bob, [carol.userId!, owner.userId!], 'group');
    const c = await sendDirect(owner, [bob.userId!], 'owner to bob');
    expect(await idsIn(bob, [{ operator: 'dm', operand: [carol.userId] }])).toEqual([a]);
    expect(await idsIn(bob, [['pm-with', carol.email]])).toEqual([a]);
    expect(await idsIn(bob, [{ operator: 'dm', operand: `${carol.email},${owner.email}` }])).toEqual([b]);
    expect(await idsIn(bob, [{ operator: 'dm-including', operand: carol.userId }])).toEqual([a, b]);
    expect(await idsIn(bob, [['group-pm-with', owner.email]])).toEqual([b, c]);
    expect(await idsIn(bob, [{ operator: 'is', operand: 'dm' }])).toEqual([a, b, c]);
    expect(await idsIn(bob, [{ operator: 'is', operand: 'private' }])).toEqual([a, b, c]);
    // Carol does not see a conversation she is not in.
    expect(await idsIn(carol, [{ operator: 'is', operand: 'dm' }])).toEqual([a, b]);
  });

  it('is:unread, is:starred, search, channels:public', async () => {
    const unread = await idsIn(carol, [...general, { operator: 'is', operand: 'unread' }]);
    expect(unread).toEqual(ids);
    expect((await carol.post('/messages/flags', { messages: [ids[2]], op: 'add', flag: 'starred' })).status).toBe(200);
    expect(await idsIn(carol, [{ operator: 'is', operand: 'starred' }])).toEqual([ids[2]]);
    expect(await idsIn(bob, [{ operator: 'search', operand: 'numbers' }, ...general])).toEqual(ids);
    // Dave never subscribed: channels:public shows public history; his own feed is empty.
    const dave = await newUser(subdomain, 'Dave Diver');
    expect(await idsIn(dave, [])).toEqual([]);
    expect((await idsIn(dave, [{ operator: 'channels', operand: 'public' }])).slice(0, 10)).toEqual(ids);
  });

  it('search highlights matches in match_content and match_subject', async () => {
    const id = await sendToChannel(owner, 'random', 'Cats topic', 'The cats are running');
    const body = await fetchMessages(bob, { narrow: [{ operator: 'search', operand: 'cat' }] });
    const m = body.messages.find((x: { id: number }) => x.id === id);
    expect(m.match_content).toBe('<p>The <span class="highlight">cats</span> are running</p>');
    expect(m.match_subject).toBe('<span class="highlight">Cats</span> topic');
    const matches = await bob.get('/messages/matches_narrow', { msg_ids: [id, ids[0]], narrow: [{ operator: 'search', operand: 'running' }] });
    expect(matches.status).toBe(200);
    expect(Object.keys(matches.body.messages)).toEqual([String(id)]);
    expect(matches.body.messages[String(id)].match_content).toContain('<span class="highlight">running</span>');
  });

  it('rejects unknown operators, operands, and contradictions with BAD_NARROW', async () => {
    const bad = async (narrow: unknown[], desc: RegExp) => {
      const r = await bob.get('/messages', { anchor: 'newest', num_before: 1, narrow });
      expectError(r, 400, 'BAD_NARROW', desc);
    };
    await bad([{ operator: 'flavour', operand: 'x' }], /unknown operator flavour/);
    await bad([{ operator: 'is', operand: 'tasty' }], /unknown 'is' operand/);
    await bad([{ operator: 'has', operand: 'cake' }], /unknown 'has' operand/);
    await bad([{ operator: 'channel', operand: 'no-such' }], /unknown channel/);
    await bad([{ operator: 'sender', operand: 'nobody@nowhere.test' }], /unknown user/);
    await bad([{ operator: 'channel', operand: 'general' }, { operator: 'is', operand: 'dm' }], /both a channel message and direct message/);
  });
});

describe('a single message', () => {
  it('returns the message with its raw content', async () => {
    const r = await bob.get(`/messages/${ids[0]}`);
    expect(r.status).toBe(200);
    expect(r.body.raw_content).toBe('message number 0');
    expect(r.body.message).toMatchObject({ id: ids[0], content: '<p>message number 0</p>', flags: expect.any(Array) });
    const md = await bob.get(`/messages/${ids[0]}`, { apply_markdown: false });
    expect(md.body.message.content).toBe('message number 0');
  });

  it('is invalid when it does not exist, belongs to another realm, or cannot be read', async () => {
    expectError(await bob.get('/messages/999999999'), 400, 'BAD_REQUEST', 'Invalid message(s)');
    const { owner: stranger } = await newRealm('mreadx');
    await createChannel(stranger, 'theirs');
    const theirs = await sendToChannel(stranger, 'theirs', 't', 'other realm');
    expectError(await bob.get(`/messages/${theirs}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expect(await idsIn(bob, [{ operator: 'id', operand: theirs }])).toEqual([]);
    const dm = await sendDirect(owner, [carol.userId!], 'not for bob');
    expectError(await bob.get(`/messages/${dm}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
  });
});

describe('history rules', () => {
  it('public channels: members read all history, guests only subscribed channels', async () => {
    expect((await guest.get(`/messages/${ids[0]}`)).status).toBe(400);
    expect(await idsIn(guest, general)).toEqual([]);
    await subscribe(owner, 'general', [guest.userId!]);
    expect(await idsIn(guest, general)).toEqual(ids);
  });

  it('private channels with protected history show only what came while subscribed', async () => {
    await createChannel(owner, 'vault', { invite_only: true, history_public_to_subscribers: false });
    const before = await sendToChannel(owner, 'vault', 't', 'before carol');
    await subscribe(owner, 'vault', [carol.userId!]);
    const during = await sendToChannel(owner, 'vault', 't', 'while carol is in');
    await unsubscribe(owner, 'vault', [carol.userId!]);
    const after = await sendToChannel(owner, 'vault', 't', 'after carol left');
    expect(await idsIn(owner, [['channel', 'vault']])).toEqual([before, during, after]);
    // Carol keeps what she received, and nothing else.
    expect(await idsIn(carol, [['channel', 'vault']])).toEqual([during]);
    expect((await carol.get(`/messages/${during}`)).status).toBe(200);
    expectError(await carol.get(`/messages/${before}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expectError(await carol.get(`/messages/${after}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
    // Bob was never subscribed.
    expect(await idsIn(bob, [['channel', 'vault']])).toEqual([]);
  });

  it('private channels with shared history show everything to subscribers', async () => {
    await createChannel(owner, 'shared', { invite_only: true, history_public_to_subscribers: true });
    const early = await sendToChannel(owner, 'shared', 't', 'early');
    expect(await idsIn(bob, [['channel', 'shared']])).toEqual([]);
    await subscribe(owner, 'shared', [bob.userId!]);
    expect(await idsIn(bob, [['channel', 'shared']])).toEqual([early]);
  });
});
