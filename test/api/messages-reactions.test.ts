// Emoji reactions: validation of the emoji, duplicates, removal, events to the message's readers.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, register, sendDirect, sendToChannel } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let dave: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('mreact'));
  [bob, carol, dave] = await Promise.all([newUser(subdomain, 'Bob Builder'), newUser(subdomain, 'Carol Cook'), newUser(subdomain, 'Dave Diver')]);
  await createChannel(owner, 'general', {}, [bob.userId!, carol.userId!]);
});

async function reactionsOf(client: Client, id: number) {
  const r = await client.get(`/messages/${id}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.message.reactions;
}

describe('adding a reaction', () => {
  it('by name, or by name and code; shown oldest first; announced to readers', async () => {
    const id = await sendToChannel(owner, 'general', 'r', 'react to me');
    const carolQ = await register(carol, { event_types: ['reaction'] });
    const daveQ = await register(dave, { event_types: ['reaction'] });
    expect((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'smile' })).status).toBe(200);
    const code = (await reactionsOf(bob, id))[0].emoji_code;
    const byCode = await carol.post(`/messages/${id}/reactions`, { emoji_name: 'smile', emoji_code: code, reaction_type: 'unicode_emoji' });
    expect(byCode.status, JSON.stringify(byCode.body)).toBe(200);
    expect((await carol.post(`/messages/${id}/reactions`, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' })).status).toBe(200);
    expect(await reactionsOf(owner, id)).toEqual([
      { emoji_name: 'smile', emoji_code: code, reaction_type: 'unicode_emoji', user_id: bob.userId },
      { emoji_name: 'smile', emoji_code: code, reaction_type: 'unicode_emoji', user_id: carol.userId },
      { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji', user_id: carol.userId },
    ]);
    expect(await events(carol, carolQ.queueId, 'reaction')).toEqual([
      expect.objectContaining({ op: 'add', message_id: id, emoji_name: 'smile', emoji_code: code, reaction_type: 'unicode_emoji', user_id: bob.userId }),
      expect.objectContaining({ op: 'add', user_id: carol.userId, emoji_name: 'smile' }),
      expect.objectContaining({ op: 'add', user_id: carol.userId, emoji_name: 'zulip' }),
    ]);
    expect(await events(dave, daveQ.queueId, 'reaction')).toEqual([]);
  });

  it('refuses a duplicate, unknown emoji, and codes outside their namespace', async () => {
    const id = await sendToChannel(owner, 'general', 'r', 'again');
    expect((await bob.post(`/messages/${id}/reactions`, { emoji_name: 'heart' })).status).toBe(200);
    expectError(await bob.post(`/messages/${id}/reactions`, { emoji_name: 'heart' }), 400, 'REACTION_ALREADY_EXISTS', 'Reaction already exists.');
    expectError(await bob.post(`/messages/${id}/reactions`, { emoji_name: 'not_an_emoji_at_all' }), 400, 'BAD_REQUEST', "Emoji 'not_an_emoji_at_all' does not exist");
    expectError(await bob.post(`/messages/${id}/reactions`, { emoji_name: 'smile', emoji_code: 'zzzz' }), 400, 'BAD_REQUEST', 'Invalid emoji code.');
    expectError(await bob.post(`/messages/${id}/reactions`, { emoji_name: 'smile', emoji_code: '10ffff' }), 400, 'BAD_REQUEST', 'Invalid emoji code.');
    const heart = (await reactionsOf(bob, id))[0].emoji_code;
    expectError(await bob.post(`/messages/${id}/reactions`, { emoji_name: 'smile', emoji_code: heart }), 400, 'BAD_REQUEST', 'Invalid emoji name.');
    expectError(await bob.post(`/messages/${id}/reactions`, { emoji_name: 'party', emoji_code: '12', reaction_type: 'realm_emoji' }), 400, 'BAD_REQUEST', 'Invalid custom emoji.');
    expectError(await bob.post(`/messages/${id}/reactions`, { emoji_name: 'smile', emoji_code: heart, reaction_type: 'sticker' }), 400, 'BAD_REQUEST', 'Invalid emoji type.');
    expectError(await bob.post('/messages/999999999/reactions', { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
    const dm = await sendDirect(owner, [carol.userId!], 'private');
    expectError(await bob.post(`/messages/${dm}/reactions`, { emoji_name: 'smile' }), 400, 'BAD_REQUEST', 'Invalid message(s)');
  });
});

describe('removing a reaction', () => {
  it('by name or by code; a missing reaction is an error', async () => {
    const id = await sendToChannel(owner, 'general', 'r', 'remove');
    await bob.post(`/messages/${id}/reactions`, { emoji_name: 'smile' });
    await bob.post(`/messages/${id}/reactions`, { emoji_name: 'heart' });
    const code = (await reactionsOf(bob, id)).find((r: { emoji_name: string }) => r.emoji_name === 'heart').emoji_code;
    const q = await register(carol, { event_types: ['reaction'] });
    expect((await bob.delete(`/messages/${id}/reactions`, { emoji_name: 'smile' })).status).toBe(200);
    expect((await bob.delete(`/messages/${id}/reactions`, { emoji_code: code, reaction_type: 'unicode_emoji' })).status).toBe(200);
    expect(await reactionsOf(bob, id)).toEqual([]);
    expectError(await bob.delete(`/messages/${id}/reactions`, { emoji_name: 'smile' }), 400, 'REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.");
    expectError(await carol.delete(`/messages/${id}/reactions`, { emoji_name: 'heart' }), 400, 'REACTION_DOES_NOT_EXIST');
    expect((await events(carol, q.queueId, 'reaction')).map((e) => [e.op, e.emoji_name, e.user_id])).toEqual([
      ['remove', 'smile', bob.userId],
      ['remove', 'heart', bob.userId],
    ]);
  });

  it('shows in has:reaction narrows', async () => {
    const id = await sendToChannel(owner, 'general', 'has-reaction', 'liked');
    await sendToChannel(owner, 'general', 'has-reaction', 'ignored');
    await carol.post(`/messages/${id}/reactions`, { emoji_name: 'thumbs_up' });
    const r = await bob.get('/messages', { anchor: 'newest', num_before: 10, narrow: [['topic', 'has-reaction'], ['has', 'reaction']] });
    expect(r.body.messages.map((m: { id: number }) => m.id)).toEqual([id]);
  });
});
