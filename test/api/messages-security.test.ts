// Isolation and access cases of security-cases.md for messages: ids from another realm are
// "does not exist" on every message endpoint; guests see only channels they are subscribed to.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, expectError, idsIn, register, sendDirect, sendToChannel } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let guest: Client;
let stranger: Client;
let strangerChannel: number;
let strangerMessage: number;
let strangerDm: number;
let publicId: number;
let publicMessage: number;

beforeAll(async () => {
  const home = await newRealm('msec');
  owner = home.owner;
  [bob, guest] = await Promise.all([newUser(home.subdomain, 'Bob Builder'), newUser(home.subdomain, 'Gus Guest', 600)]);
  const away = await newRealm('msecx');
  stranger = away.owner;
  const strangerFriend = await newUser(away.subdomain, 'Faye Friend');
  strangerChannel = await createChannel(stranger, 'elsewhere', {}, [strangerFriend.userId!]);
  strangerMessage = await sendToChannel(stranger, 'elsewhere', 'theirs', 'other realm secret');
  strangerDm = await sendDirect(stranger, [strangerFriend.userId!], 'other realm dm');
  publicId = await createChannel(owner, 'public-room', {}, [bob.userId!]);
  publicMessage = await sendToChannel(owner, 'public-room', 'open', 'public words');
});

describe('ids from another realm', () => {
  it('are unknown to every message endpoint', async () => {
    for (const id of [strangerMessage, strangerDm]) {
      expectError(await bob.get(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
      expectError(await bob.patch(`/messages/${id}`, { content: 'x' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
      expectError(await bob.patch(`/messages/${id}`, { topic: 'x' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
      expectError(await owner.delete(`/messages/${id}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
      expectError(await bob.post(`/messages/${id}/reactions`, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
      expectError(await bob.delete(`/messages/${id}/reactions`, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
      expectError(await bob.post('/messages/flags', { messages: [id], op: 'add', flag: 'starred' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    }
    const body = (await bob.get('/messages', { message_ids: [strangerMessage, strangerDm] })).body;
    expect(body.messages).toEqual([]);
    const matches = await bob.get('/messages/matches_narrow', { msg_ids: [strangerMessage], narrow: [] });
    expect(matches.body.messages).toEqual({});
    expect(await idsIn(owner, [{ operator: 'search', operand: 'secret' }])).toEqual([]);
    // The other realm still has its message, untouched.
    expect((await stranger.get(`/messages/${strangerMessage}`)).body.message.content).toBe('<p>other realm secret</p>');
  });

  it('cannot be used as channels or users', async () => {
    expectError(await bob.post('/messages', { type: 'stream', to: String(strangerChannel), topic: 't', content: 'x' }), 400, 'STREAM_DOES_NOT_EXIST');
    expectError(await bob.post('/messages', { type: 'stream', to: 'elsewhere', topic: 't', content: 'x' }), 400, 'STREAM_DOES_NOT_EXIST');
    expectError(await bob.post('/messages', { type: 'direct', to: `[${stranger.userId}]`, content: 'x' }), 400, 'BAD_REQUEST');
    expectError(await bob.post('/messages', { type: 'direct', to: JSON.stringify([stranger.email]), content: 'x' }), 400, 'BAD_REQUEST');
    expectError(await bob.get(`/users/me/${strangerChannel}/topics`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await bob.post('/user_topics', { stream_id: strangerChannel, topic: 't', visibility_policy: 1 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await bob.post('/mark_stream_as_read', { stream_id: strangerChannel }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await bob.patch(`/messages/${publicMessage}`, { stream_id: strangerChannel }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    const narrow = await bob.get('/messages', { anchor: 'newest', num_before: 5, narrow: [{ operator: 'channel', operand: strangerChannel }] });
    expectError(narrow, 400, 'BAD_NARROW');
    const dm = await bob.get('/messages', { anchor: 'newest', num_before: 5, narrow: [{ operator: 'dm', operand: [stranger.userId] }] });
    expectError(dm, 400, 'BAD_NARROW');
  });
});

describe('guests', () => {
  it('read, search and react only in channels they are subscribed to (CVE-2026-100404)', async () => {
    const q = await register(guest, { event_types: ['message'] });
    const later = await sendToChannel(owner, 'public-room', 'open', 'more public words');
    expectError(await guest.get(`/messages/${publicMessage}`), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expect(await idsIn(guest, [{ operator: 'channel', operand: 'public-room' }])).toEqual([]);
    expect(await idsIn(guest, [{ operator: 'search', operand: 'public' }])).toEqual([]);
    expect(await idsIn(guest, [{ operator: 'channels', operand: 'public' }])).toEqual([]);
    expectError(await guest.post(`/messages/${later}/reactions`, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    expectError(await guest.get(`/users/me/${publicId}/topics`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await guest.post('/messages/flags', { messages: [later], op: 'add', flag: 'starred' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    const r = await guest.get('/events', { queue_id: q.queueId, last_event_id: -1, dont_block: true });
    expect(r.body.events.filter((e: { type: string }) => e.type === 'message')).toEqual([]);
  });
});
