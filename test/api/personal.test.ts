// Muted users, user status and bot storage, as a client sees them: answers, errors, events,
// the register sections, and what muting does to messages from the muted user.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser } from '../helpers/client.js';
import { eventsNow, eventsOfType, queueFor, register } from './events-support.js';
import { expectResponse } from '../helpers/responses/index.js';

let owner: Client;
let bob: Client;
let carol: Client;
let bot: Client;

beforeAll(async () => {
  const realm = await newRealm('pers');
  owner = realm.owner;
  bob = await newUser(realm.subdomain, 'Bob Personal');
  carol = await newUser(realm.subdomain, 'Carol Personal');
  const created = await owner.post('/bots', { full_name: 'Keeper Bot', short_name: 'keeper', bot_type: 1 });
  expect(created.status).toBe(200);
  const info = await owner.get(`/users/${created.body.user_id}`);
  bot = owner.as({ email: info.body.user.email, api_key: created.body.api_key, user_id: created.body.user_id });
});

const expectError = (r: { status: number; body: Record<string, unknown> }, msg: string, code = 'BAD_REQUEST') => {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body).toMatchObject({ result: 'error', code, msg });
};

describe('muted users', () => {
  it('muting marks the muted user\'s unread messages read, and later ones arrive read, with no effect on others', async () => {
    const before = await carol.post('/messages', { type: 'direct', to: [bob.userId], content: 'before muting' });
    const q = await queueFor(bob);
    const other = await queueFor(owner);
    expectResponse('envelope only', await bob.post(`/users/me/muted_users/${carol.userId}`));
    const events = await eventsNow(bob, q);
    const flags = events.find((e) => e.type === 'update_message_flags');
    expect(flags).toMatchObject({ op: 'add', flag: 'read', messages: [before.body.id] });
    const muted = events.find((e) => e.type === 'muted_users');
    expect(muted!.muted_users).toEqual([{ id: carol.userId, timestamp: expect.any(Number) }]);
    expect(events.indexOf(flags!)).toBeLessThan(events.indexOf(muted!));
    expect(await eventsNow(owner, other)).toEqual([]);
    expect((await register(bob, { fetch_event_types: ['muted_users'] })).muted_users).toEqual(muted!.muted_users);
    expect((await register(owner, { fetch_event_types: ['muted_users'] })).muted_users).toEqual([]);

    const after = await carol.post('/messages', { type: 'direct', to: [bob.userId, owner.userId], content: 'after muting' });
    const forBob = (await eventsOfType(bob, q, 'message')).find((e) => e.message.id === after.body.id);
    expect(forBob!.flags).toContain('read');
    const fetched = await bob.get(`/messages/${after.body.id}`);
    expect(fetched.body.message.flags).toContain('read');
    expect((await owner.get(`/messages/${after.body.id}`)).body.message.flags).not.toContain('read');
  });

  it('refuses to mute oneself, nobody, or someone already muted; unmuting needs a mute', async () => {
    expectError(await bob.post(`/users/me/muted_users/${bob.userId}`), 'Cannot mute self');
    expectError(await bob.post('/users/me/muted_users/999999'), 'No such user');
    expectError(await bob.post(`/users/me/muted_users/${carol.userId}`), 'User already muted');
    expectError(await bob.delete(`/users/me/muted_users/${owner.userId}`), 'User is not muted');
    expectError(await bob.delete('/users/me/muted_users/999999'), 'No such user');
    expect((await register(bob, { fetch_event_types: ['muted_users'] })).muted_users.map((m: { id: number }) => m.id)).toEqual([carol.userId]);
  });

  it('bots can be muted, and unmuting announces the shorter list', async () => {
    const q = await queueFor(bob);
    expect((await bob.post(`/users/me/muted_users/${bot.userId}`)).status).toBe(200);
    expect((await bob.delete(`/users/me/muted_users/${carol.userId}`)).status).toBe(200);
    const lists = (await eventsOfType(bob, q, 'muted_users')).map((e) => e.muted_users.map((m: { id: number }) => m.id));
    expect(lists).toEqual([[carol.userId, bot.userId], [bot.userId]]);
    expect((await bob.delete(`/users/me/muted_users/${bot.userId}`)).status).toBe(200);
    expect((await register(bob, { fetch_event_types: ['muted_users'] })).muted_users).toEqual([]);
  });
});

describe('user status', () => {
  it('sets text and emoji, tells everyone, and register and GET /users/{id}/status show it', async () => {
    const q = await queueFor(owner);
    expectResponse('envelope only', await bob.post('/users/me/status', { status_text: '  on vacation ', emoji_name: 'car' }));
    const [event] = await eventsOfType(owner, q, 'user_status');
    expect(event).toEqual({
      type: 'user_status', id: expect.any(Number), user_id: bob.userId,
      status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji',
    });
    const expected = { status_text: 'on vacation', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' };
    expect(expectResponse('GET /users/{id}/status', await carol.get(`/users/${bob.userId}/status`)).status).toEqual(expected);
    expect((await register(carol, { fetch_event_types: ['user_status'] })).user_status).toEqual({ [String(bob.userId)]: expected });
    expect(expectResponse('GET /users/{id}/status', await carol.get(`/users/${carol.userId}/status`)).status).toEqual({});
  });

  it('changes only what the request names; empty values clear; away is kept', async () => {
    const q = await queueFor(carol);
    expect((await bob.post('/users/me/status', { away: true })).status).toBe(200);
    expect((await bob.post('/users/me/status', { emoji_name: '' })).status).toBe(200);
    const events = await eventsOfType(carol, q, 'user_status');
    expect(events.map(({ id: _id, ...e }) => e)).toEqual([
      { type: 'user_status', user_id: bob.userId, away: true },
      { type: 'user_status', user_id: bob.userId, emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' },
    ]);
    expect(expectResponse('GET /users/{id}/status', await carol.get(`/users/${bob.userId}/status`)).status).toEqual({ away: true, status_text: 'on vacation' });
    // `away` is the presence_enabled setting, inverted.
    const presenceEnabled = async () => (await register(bob, { fetch_event_types: ['user_settings'] })).user_settings.presence_enabled;
    expect(await presenceEnabled()).toBe(false);
    expect((await bob.post('/users/me/status', { away: false, status_text: '' })).status).toBe(200);
    expect(await presenceEnabled()).toBe(true);
    expect((await register(carol, { fetch_event_types: ['user_status'] })).user_status).toEqual({});
  });

  it('refuses bad input and changes nothing', async () => {
    expectError(await bob.post('/users/me/status', {}), 'Client did not pass any new values.');
    expectError(await bob.post('/users/me/status', { status_text: 'x'.repeat(61) }), 'status_text is too long (limit: 60 characters)');
    expectError(await bob.post('/users/me/status', { emoji_code: '1f697' }), 'Client did not pass any new values.');
    expectError(await bob.post('/users/me/status', { status_text: 'hi', reaction_type: 'unicode_emoji' }), 'Client must pass emoji_name if they pass either emoji_code or reaction_type.');
    expectError(await bob.post('/users/me/status', { emoji_name: 'no_such_emoji_here' }), "Emoji 'no_such_emoji_here' does not exist");
    expectError(await bob.post('/users/me/status', { emoji_name: 'car', emoji_code: '1f600', reaction_type: 'unicode_emoji' }), 'Invalid emoji name.');
    expectError(await bot.post('/users/me/status', { status_text: 'beep' }), 'This endpoint does not accept bot requests.');
    expectError(await bob.get('/users/999999/status'), 'No such user');
    expectError(await bob.get(`/users/${bot.userId}/status`), 'No such user');
    expect(expectResponse('GET /users/{id}/status', await carol.get(`/users/${bob.userId}/status`)).status).toEqual({});
  });
});

describe('bot storage', () => {
  it('stores, reads and removes string entries per user', async () => {
    expect((await bot.request('PUT', '/bot_storage', { storage: { counter: '1', name: 'keeper' } })).status).toBe(200);
    expect(expectResponse('GET /bot_storage', await bot.get('/bot_storage')).storage).toEqual({ counter: '1', name: 'keeper' });
    expect((await bot.request('PUT', '/bot_storage', { storage: { counter: '2' } })).status).toBe(200);
    expect(expectResponse('GET /bot_storage', await bot.get('/bot_storage', { keys: ['counter'] }))).toEqual({ result: 'success', msg: '', storage: { counter: '2' } });
    // Another user's storage is their own.
    expect(expectResponse('GET /bot_storage', await bob.get('/bot_storage')).storage).toEqual({});
    expect((await bot.delete('/bot_storage', { keys: ['name'] })).status).toBe(200);
    expect(expectResponse('GET /bot_storage', await bot.get('/bot_storage')).storage).toEqual({ counter: '2' });
    expect((await bot.delete('/bot_storage')).status).toBe(200);
    expect(expectResponse('GET /bot_storage', await bot.get('/bot_storage')).storage).toEqual({});
  });

  it('refuses unknown keys, non-string values and storage past the limit, changing nothing', async () => {
    expect((await bot.request('PUT', '/bot_storage', { storage: { keep: 'me' } })).status).toBe(200);
    expectError(await bot.get('/bot_storage', { keys: ['keep', 'missing'] }), 'Key does not exist.');
    expectError(await bot.delete('/bot_storage', { keys: ['keep', 'missing'] }), 'Key does not exist.');
    const notString = await bot.request('PUT', '/bot_storage', { storage: { keep: 5 } });
    expect(notString.status).toBe(400);
    expect(notString.body.code).toBe('BAD_REQUEST');
    const missing = await bot.request('PUT', '/bot_storage', {});
    expect(missing.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'storage' argument" });
    const big = 'x'.repeat(10_000_000);
    expectError(
      await bot.request('PUT', '/bot_storage', { storage: { huge: big } }),
      'Request exceeds storage limit by 10 characters. The limit is 10000000 characters.',
    );
    expect(expectResponse('GET /bot_storage', await bot.get('/bot_storage')).storage).toEqual({ keep: 'me' });
  });
});
