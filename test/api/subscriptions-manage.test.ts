// Unsubscribing (oneself and others), per-user subscription settings, peer events, and the
// subscription history that protected-history channels rely on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { closeTestDb, deactivateUser, testDb } from '../helpers/db.js';
import { createChannel, drain, expectError, insertBot, names, ok, openQueue, systemGroupIds, type Json } from './channels-helpers.js';
import { historyRanges } from '../../src/queries/subscriptionHistory.js';
import type { RealmActor } from '../../src/realm/actor.js';

let owner: Client;
let alice: Client;
let bob: Client;
let carol: Client;
let gone: Client;
let guest: Client;
let aliceBot: Client;
let sys: Record<string, number>;
let otherOwner: Client;

beforeAll(async () => {
  const realm = await newRealm('subman');
  owner = realm.owner;
  alice = await newUser(realm.subdomain, 'Alice Member');
  bob = await newUser(realm.subdomain, 'Bob Member');
  carol = await newUser(realm.subdomain, 'Carol Member');
  gone = await newUser(realm.subdomain, 'Dee Parted');
  guest = await newUser(realm.subdomain, 'Gina Guest', 600);
  // Before the realm's first request, so the actor loads them.
  aliceBot = await insertBot(realm.subdomain, alice.userId!, 'Alice Helper');
  await deactivateUser(gone.userId!);
  sys = await systemGroupIds(realm.subdomain);
  otherOwner = (await newRealm('submanx')).owner;
});

afterAll(closeTestDb);

describe('unsubscribing oneself', () => {
  it('reports removed and not removed channels and tells the peers', async () => {
    const id = await createChannel(alice, 'leave-me', { principals: [alice.userId, bob.userId] });
    await createChannel(alice, 'never-joined');
    const [qb, qc, qg] = await Promise.all([openQueue(bob), openQueue(carol), openQueue(guest)]);
    const r = ok(await bob.delete('/users/me/subscriptions', { subscriptions: ['leave-me', 'never-joined'] }));
    expect(r).toMatchObject({ removed: ['leave-me'], not_removed: ['never-joined'] });
    expect(await drain(qb)).toEqual([expect.objectContaining({ type: 'subscription', op: 'remove', subscriptions: [{ name: 'leave-me', stream_id: id }] })]);
    expect(await drain(qc)).toEqual([expect.objectContaining({ type: 'subscription', op: 'peer_remove', stream_ids: [id], user_ids: [bob.userId] })]);
    expect(await drain(qg)).toEqual([]);
    expect(ok(await alice.get(`/streams/${id}/members`)).subscribers).toEqual([alice.userId]);
  });

  it('names channels that do not exist', async () => {
    expectError(await bob.delete('/users/me/subscriptions', { subscriptions: ['no-such-channel'] }), 400, 'STREAM_DOES_NOT_EXIST', "Channel 'no-such-channel' does not exist");
    expect((await bob.delete('/users/me/subscriptions', { subscriptions: ['no-such-channel'] })).body.stream).toBe('no-such-channel');
    await createChannel(alice, 'hidden-leave', { invite_only: true });
    expectError(await bob.delete('/users/me/subscriptions', { subscriptions: ['hidden-leave'] }), 400, 'STREAM_DOES_NOT_EXIST');
    expectError(await otherOwner.delete('/users/me/subscriptions', { subscriptions: ['leave-me'] }), 400, 'STREAM_DOES_NOT_EXIST');
  });

  it('keeps personal settings for a later return', async () => {
    const id = await createChannel(carol, 'come-back');
    ok(await carol.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'color', value: '#123456' }] }));
    ok(await carol.delete('/users/me/subscriptions', { subscriptions: ['come-back'] }));
    ok(await carol.post('/users/me/subscriptions', { subscriptions: [{ name: 'come-back' }] }));
    const sub = (ok(await carol.get('/users/me/subscriptions')).subscriptions as Json[]).find((s) => s.stream_id === id)!;
    expect(sub.color).toBe('#123456');
  });
});

describe('unsubscribing others', () => {
  it('is for administrators, in any channel', async () => {
    const pub = await createChannel(alice, 'admin-removes', { principals: [alice.userId, bob.userId] });
    const priv = await createChannel(alice, 'admin-removes-private', { invite_only: true, principals: [alice.userId, bob.userId] });
    expectError(await carol.delete('/users/me/subscriptions', { subscriptions: ['admin-removes'], principals: [bob.userId] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    const qb = await openQueue(bob);
    expect(ok(await owner.delete('/users/me/subscriptions', { subscriptions: ['admin-removes'], principals: [bob.userId] })).removed).toEqual(['admin-removes']);
    expect(ok(await owner.delete('/users/me/subscriptions', { subscriptions: ['admin-removes-private'], principals: [bob.email!] })).removed).toEqual(['admin-removes-private']);
    expect((await drain(qb)).map((e) => `${e.type}/${e.op}`)).toEqual(['subscription/remove', 'subscription/remove', 'stream/delete']);
    expect(ok(await alice.get(`/users/${bob.userId}/subscriptions/${pub}`)).is_subscribed).toBe(false);
    expect(ok(await alice.get(`/users/${bob.userId}/subscriptions/${priv}`)).is_subscribed).toBe(false);
  });

  it('is for members of the channel can_remove_subscribers_group and its administrators', async () => {
    const id = await createChannel(alice, 'members-remove', { principals: [alice.userId, bob.userId, carol.userId] });
    // The creator administers the channel.
    ok(await alice.delete('/users/me/subscriptions', { subscriptions: ['members-remove'], principals: [carol.userId] }));
    expectError(await bob.delete('/users/me/subscriptions', { subscriptions: ['members-remove'], principals: [alice.userId] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    ok(await alice.patch(`/streams/${id}`, { can_remove_subscribers_group: { new: sys['role:members'] } }));
    ok(await bob.delete('/users/me/subscriptions', { subscriptions: ['members-remove'], principals: [alice.userId] }));
    expect(ok(await bob.get(`/streams/${id}/members`)).subscribers).toEqual([bob.userId]);
  });

  it('lets a user remove their own bot, and nobody else theirs', async () => {
    await createChannel(bob, 'bot-room');
    ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'bot-room' }], principals: [aliceBot.userId] }));
    expectError(await carol.delete('/users/me/subscriptions', { subscriptions: ['bot-room'], principals: [aliceBot.userId] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expect(ok(await alice.delete('/users/me/subscriptions', { subscriptions: ['bot-room'], principals: [aliceBot.userId] })).removed).toEqual(['bot-room']);
    // The bot can read its own subscriptions.
    expect(names(ok(await aliceBot.get('/users/me/subscriptions')).subscriptions)).not.toContain('bot-room');
  });

  it('refuses deactivated and unknown principals with 400', async () => {
    await createChannel(owner, 'principals');
    expectError(await owner.delete('/users/me/subscriptions', { subscriptions: ['principals'], principals: [gone.userId] }), 400, 'BAD_REQUEST');
    expectError(await owner.delete('/users/me/subscriptions', { subscriptions: ['principals'], principals: [99999999] }), 400, 'BAD_REQUEST');
    expectError(await owner.delete('/users/me/subscriptions', { subscriptions: ['principals'], principals: ['ghost@nowhere.test'] }), 400, 'BAD_REQUEST');
    expectError(await owner.delete('/users/me/subscriptions', { subscriptions: ['principals'], principals: [otherOwner.userId] }), 400, 'BAD_REQUEST');
    expectError(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'principals' }], principals: [gone.userId] }), 400, 'BAD_REQUEST');
  });
});

describe('subscription settings', () => {
  let id: number;
  beforeAll(async () => {
    id = await createChannel(alice, 'settings');
  });

  it('change one property at a time, each with its event', async () => {
    const qa = await openQueue(alice);
    ok(await alice.post('/users/me/subscriptions/properties', {
      subscription_data: [
        { stream_id: id, property: 'color', value: '#abcdef' },
        { stream_id: id, property: 'pin_to_top', value: true },
        { stream_id: id, property: 'desktop_notifications', value: false },
        { stream_id: id, property: 'wildcard_mentions_notify', value: true },
      ],
    }));
    expect(await drain(qa)).toEqual([
      expect.objectContaining({ type: 'subscription', op: 'update', stream_id: id, property: 'color', value: '#abcdef' }),
      expect.objectContaining({ property: 'pin_to_top', value: true }),
      expect.objectContaining({ property: 'desktop_notifications', value: false }),
      expect.objectContaining({ property: 'wildcard_mentions_notify', value: true }),
    ]);
    const sub = (ok(await alice.get('/users/me/subscriptions')).subscriptions as Json[]).find((s) => s.stream_id === id)!;
    expect(sub).toMatchObject({ color: '#abcdef', pin_to_top: true, desktop_notifications: false, push_notifications: null, wildcard_mentions_notify: true });
  });

  it('muting sends in_home_view and is_muted, whichever name was used', async () => {
    const [qa, qb] = await Promise.all([openQueue(alice), openQueue(bob)]);
    ok(await alice.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'is_muted', value: true }] }));
    expect(await drain(qa)).toEqual([
      expect.objectContaining({ property: 'in_home_view', value: false }),
      expect.objectContaining({ property: 'is_muted', value: true }),
    ]);
    ok(await alice.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'in_home_view', value: true }] }));
    expect(await drain(qa)).toEqual([
      expect.objectContaining({ property: 'in_home_view', value: true }),
      expect.objectContaining({ property: 'is_muted', value: false }),
    ]);
    expect(await drain(qb)).toEqual([]);
  });

  it('the older single-property route', async () => {
    ok(await alice.patch(`/users/me/subscriptions/${id}`, { property: 'color', value: '#00ff00' }));
    ok(await alice.patch(`/users/me/subscriptions/${id}`, { property: 'is_muted', value: 'true' }));
    const sub = (ok(await alice.get('/users/me/subscriptions')).subscriptions as Json[]).find((s) => s.stream_id === id)!;
    expect(sub).toMatchObject({ color: '#00ff00', is_muted: true, in_home_view: false });
    expectError(await alice.patch(`/users/me/subscriptions/${id}`, { property: 'pin_to_top', value: 'yes' }), 400, 'BAD_REQUEST', 'pin_to_top is not a boolean');
  });

  it('rejects bad values, unknown properties and foreign channels, changing nothing', async () => {
    const change = (data: Json[]) => alice.post('/users/me/subscriptions/properties', { subscription_data: data });
    expectError(await change([{ stream_id: id, property: 'color', value: 'green' }]), 400, 'BAD_REQUEST', 'color is not a valid hex color code');
    expectError(await change([{ stream_id: id, property: 'pin_to_top', value: 'yes' }]), 400, 'BAD_REQUEST', 'pin_to_top is not a boolean');
    expectError(await change([{ stream_id: id, property: 'volume', value: true }]), 400, 'BAD_REQUEST', 'Unknown subscription property: volume');
    const other = await createChannel(bob, 'not-alices');
    expectError(await change([{ stream_id: other, property: 'pin_to_top', value: true }]), 400, 'BAD_REQUEST', `Not subscribed to channel ID ${other}`);
    const priv = await createChannel(bob, 'bobs-secret', { invite_only: true });
    expectError(await change([{ stream_id: priv, property: 'pin_to_top', value: true }]), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await otherOwner.post('/users/me/subscriptions/properties', { subscription_data: [{ stream_id: id, property: 'pin_to_top', value: true }] }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await change([{ stream_id: id, property: 'color', value: '#111111' }, { stream_id: id, property: 'pin_to_top', value: 3 }]), 400, 'BAD_REQUEST');
    const sub = (ok(await alice.get('/users/me/subscriptions')).subscriptions as Json[]).find((s) => s.stream_id === id)!;
    expect(sub.color).toBe('#00ff00');
    expectError(await alice.post('/users/me/subscriptions/properties', {}), 400, 'REQUEST_VARIABLE_MISSING');
  });
});

describe('GET /users/me/subscriptions', () => {
  it('lists active subscriptions with subscribers on request', async () => {
    const id = await createChannel(carol, 'listing', { principals: [carol.userId, guest.userId] });
    const plain = (ok(await carol.get('/users/me/subscriptions')).subscriptions as Json[]).find((s) => s.stream_id === id)!;
    expect(plain).not.toHaveProperty('subscribers');
    expect(plain).toMatchObject({ name: 'listing', desktop_notifications: null, in_home_view: true });
    const full = (ok(await carol.get('/users/me/subscriptions', { include_subscribers: true })).subscriptions as Json[]).find((s) => s.stream_id === id)!;
    expect(full.subscribers).toEqual([carol.userId, guest.userId].sort((a, b) => a! - b!));
    expectError(await carol.get('/users/me/subscriptions', { include_subscribers: 'sometimes' }), 400, 'BAD_REQUEST');
  });

  it('subscription add events are shaped by each queue: subscribers, notification defaults', async () => {
    const [plain, full] = await Promise.all([
      openQueue(bob),
      openQueue(bob, { include_subscribers: true, client_capabilities: { notification_settings_null: true } }),
    ]);
    await createChannel(carol, 'event-shapes');
    ok(await carol.post('/users/me/subscriptions', { subscriptions: [{ name: 'event-shapes' }], principals: [bob.userId] }));
    const addPlain = (await drain(plain)).find((e) => e.op === 'add')!;
    const addFull = (await drain(full)).find((e) => e.op === 'add')!;
    expect(addPlain.subscriptions[0]).not.toHaveProperty('subscribers');
    expect(addPlain.subscriptions[0]).toMatchObject({ desktop_notifications: false, wildcard_mentions_notify: true });
    expect(addFull.subscriptions[0].subscribers).toEqual([bob.userId, carol.userId].sort((a, b) => a! - b!));
    expect(addFull.subscriptions[0]).toMatchObject({ desktop_notifications: null, wildcard_mentions_notify: null });
  });
});

describe('subscription history', () => {
  it('is recorded as message id ranges', async () => {
    const id = await createChannel(carol, 'history', { invite_only: true, principals: [carol.userId, bob.userId] });
    ok(await carol.delete('/users/me/subscriptions', { subscriptions: ['history'], principals: [bob.userId] }));
    const rows = await testDb()<{ event: string }[]>`SELECT event FROM subscription_log WHERE user_id = ${bob.userId!} AND stream_id = ${id} ORDER BY id`;
    expect(rows.map((r) => r.event)).toEqual(['subscribed', 'unsubscribed']);
    // Ranges from a log written while messages 10..20 and 30.. were sent.
    await testDb()`INSERT INTO subscription_log (user_id, stream_id, event, message_id_at) VALUES
      (${carol.userId!}, ${id}, 'unsubscribed', 0), (${carol.userId!}, ${id}, 'subscribed', 9),
      (${carol.userId!}, ${id}, 'unsubscribed', 20), (${carol.userId!}, ${id}, 'subscribed', 29)`;
    const actor = { sql: testDb() } as unknown as RealmActor;
    expect(await historyRanges(actor, carol.userId!, id)).toEqual([{ from: 10, to: 20 }, { from: 30, to: null }]);
    // Subscribed and gone again before any message was sent: no range.
    expect(await historyRanges(actor, bob.userId!, id)).toEqual([]);
    expect(await historyRanges(actor, alice.userId!, id)).toEqual([]);
  });
});
