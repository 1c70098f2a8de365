// Reading channels: listing filters, single fetches, members, subscription checks, register
// sections — and who must not see what (guests, former subscribers, other organizations).
import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { setRealmSettings } from '../helpers/db.js';
import { createChannel, drain, expectError, names, ok, openQueue, type Json } from './channels-helpers.js';

let owner: Client;
let alice: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let otherOwner: Client;
const ids: Record<string, number> = {};

beforeAll(async () => {
  const realm = await newRealm('chread');
  owner = realm.owner;
  alice = await newUser(realm.subdomain, 'Alice Member');
  bob = await newUser(realm.subdomain, 'Bob Member');
  carol = await newUser(realm.subdomain, 'Carol Member');
  guest = await newUser(realm.subdomain, 'Gina Guest', 600);
  await setRealmSettings(realm.subdomain, { enable_spectator_access: true });
  otherOwner = (await newRealm('chreadx')).owner;
  ids.pub = await createChannel(alice, 'b-public');
  ids.priv = await createChannel(alice, 'a-private', { invite_only: true, principals: [alice.userId, bob.userId] });
  ids.guestRoom = await createChannel(alice, 'c-guest-room', { principals: [alice.userId, guest.userId] });
  ids.web = await createChannel(owner, 'd-web', { is_web_public: true });
});

describe('GET /streams', () => {
  it('lists public and subscribed channels by default, sorted by name', async () => {
    expect(names(ok(await alice.get('/streams')).streams)).toEqual(['a-private', 'b-public', 'c-guest-room', 'd-web']);
    expect(names(ok(await carol.get('/streams')).streams)).toEqual(['b-public', 'c-guest-room', 'd-web']);
    // Administrators list private channels only when asking for everything.
    expect(names(ok(await owner.get('/streams')).streams)).not.toContain('a-private');
    expect(names(ok(await owner.get('/streams', { include_all: true })).streams)).toContain('a-private');
    expect(names(ok(await owner.get('/streams', { include_all_active: true })).streams)).toContain('a-private');
    expect(names(ok(await owner.get('/streams', { include_can_access_content: true })).streams)).not.toContain('a-private');
  });

  it('applies each filter', async () => {
    expect(names(ok(await alice.get('/streams', { include_public: false })).streams)).toEqual(['a-private', 'b-public', 'c-guest-room']);
    expect(names(ok(await carol.get('/streams', { include_public: false, include_subscribed: false })).streams)).toEqual([]);
    expect(names(ok(await carol.get('/streams', { include_public: false, include_subscribed: false, include_web_public: true })).streams)).toEqual(['d-web']);
    const withDefault = ok(await carol.get('/streams', { include_default: true })).streams as Json[];
    expect(withDefault.every((s) => s.is_default === false)).toBe(true);
    expect(ok(await carol.get('/streams')).streams[0]).not.toHaveProperty('is_default');
  });

  it('shows guests only their channels and web-public ones', async () => {
    expect(names(ok(await guest.get('/streams')).streams)).toEqual(['c-guest-room']);
    expect(names(ok(await guest.get('/streams', { include_all: true })).streams)).toEqual(['c-guest-room', 'd-web']);
    expect(names(ok(await guest.get('/streams', { include_web_public: true })).streams)).toEqual(['c-guest-room', 'd-web']);
  });

  it('never lists another organization', async () => {
    expect(names(ok(await otherOwner.get('/streams', { include_all: true })).streams)).toEqual([]);
  });
});

describe('single channel reads', () => {
  it('GET /streams/{id} needs metadata access', async () => {
    expect(ok(await bob.get(`/streams/${ids.priv}`)).stream).toMatchObject({ name: 'a-private', subscriber_count: 2 });
    expect(ok(await owner.get(`/streams/${ids.priv}`)).stream.name).toBe('a-private');
    expectError(await carol.get(`/streams/${ids.priv}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await guest.get(`/streams/${ids.pub}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expect(ok(await guest.get(`/streams/${ids.web}`)).stream.name).toBe('d-web');
    expectError(await otherOwner.get(`/streams/${ids.pub}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });

  it('GET /get_stream_id needs content access', async () => {
    expect(ok(await bob.get('/get_stream_id', { stream: 'A-PRIVATE' })).stream_id).toBe(ids.priv);
    expectError(await owner.get('/get_stream_id', { stream: 'a-private' }), 400, 'BAD_REQUEST', "Invalid channel name 'a-private'");
    expectError(await guest.get('/get_stream_id', { stream: 'b-public' }), 400, 'BAD_REQUEST', "Invalid channel name 'b-public'");
    expectError(await carol.get('/get_stream_id', { stream: 'nope' }), 400, 'BAD_REQUEST', "Invalid channel name 'nope'");
    expectError(await carol.get('/get_stream_id'), 400, 'REQUEST_VARIABLE_MISSING');
  });

  it('GET /streams/{id}/members follows who may see subscribers', async () => {
    expect(ok(await carol.get(`/streams/${ids.guestRoom}/members`)).subscribers).toEqual([alice.userId, guest.userId].sort((a, b) => a! - b!));
    expect(ok(await owner.get(`/streams/${ids.priv}/members`)).subscribers).toEqual([alice.userId, bob.userId].sort((a, b) => a! - b!));
    expect(ok(await guest.get(`/streams/${ids.guestRoom}/members`)).subscribers).toContain(guest.userId);
    expectError(await guest.get(`/streams/${ids.pub}/members`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await carol.get(`/streams/${ids.priv}/members`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });

  it('GET /users/{user_id}/subscriptions/{stream_id}', async () => {
    expect(ok(await alice.get(`/users/${bob.userId}/subscriptions/${ids.priv}`)).is_subscribed).toBe(true);
    expect(ok(await alice.get(`/users/${carol.userId}/subscriptions/${ids.pub}`)).is_subscribed).toBe(false);
    expectError(await carol.get(`/users/${bob.userId}/subscriptions/${ids.priv}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await alice.get(`/users/99999999/subscriptions/${ids.pub}`), 400, 'BAD_REQUEST', 'No such user');
    expectError(await alice.get(`/users/${otherOwner.userId}/subscriptions/${ids.pub}`), 400, 'BAD_REQUEST', 'No such user');
    expectError(await otherOwner.get(`/users/${otherOwner.userId}/subscriptions/${ids.pub}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });
});

describe('register', () => {
  it('lists subscriptions, unsubscribed and never subscribed channels', async () => {
    const r = ok(await carol.post('/register', { fetch_event_types: ['subscription', 'stream'], include_subscribers: true }));
    expect(names(r.subscriptions)).toEqual([]);
    expect(names(r.never_subscribed)).toEqual(['b-public', 'c-guest-room', 'd-web']);
    expect(r.never_subscribed.find((s: Json) => s.name === 'c-guest-room').subscribers).toEqual([alice.userId, guest.userId].sort((a, b) => a! - b!));
    expect(names(r.streams)).toEqual(['b-public', 'c-guest-room', 'd-web']);
    const a = ok(await alice.post('/register', { fetch_event_types: ['subscription'], include_subscribers: true }));
    expect(names(a.subscriptions)).toEqual(['a-private', 'b-public', 'c-guest-room']);
    expect(a.subscriptions[0]).toMatchObject({ stream_id: ids.priv, color: expect.stringMatching(/^#/), is_muted: false, in_home_view: true, subscribers: [alice.userId, bob.userId].sort((x, y) => x! - y!) });
  });

  it('fills notification settings unless the client takes null', async () => {
    const plain = ok(await alice.post('/register', { fetch_event_types: ['subscription'] }));
    expect(plain.subscriptions[0]).toMatchObject({ desktop_notifications: false, push_notifications: false, email_notifications: false, audible_notifications: false, wildcard_mentions_notify: true });
    expect(plain.subscriptions[0]).not.toHaveProperty('subscribers');
    const modern = ok(await alice.post('/register', { fetch_event_types: ['subscription'], client_capabilities: { notification_settings_null: true } }));
    expect(modern.subscriptions[0]).toMatchObject({ desktop_notifications: null, wildcard_mentions_notify: null });
    // "partial" came at feature level 412: a non-boolean here.
    const partial = await alice.post('/register', { fetch_event_types: ['subscription'], include_subscribers: 'partial' });
    expect(partial.status).toBe(400);
  });

  it('shows guests neither unsubscribed public channels nor their subscribers', async () => {
    const r = ok(await guest.post('/register', { fetch_event_types: ['subscription', 'stream', 'default_streams'], include_subscribers: true }));
    expect(names(r.subscriptions)).toEqual(['c-guest-room']);
    expect(names(r.never_subscribed)).toEqual(['d-web']);
    expect(names(r.streams)).toEqual(['c-guest-room', 'd-web']);
    expect(r.realm_default_streams).toEqual([]);
  });

  it('leaves archived channels out unless the client understands them', async () => {
    const id = await createChannel(alice, 'e-archived');
    ok(await alice.delete(`/streams/${id}`));
    const plain = ok(await alice.post('/register', { fetch_event_types: ['subscription', 'stream'] }));
    expect(names(plain.subscriptions)).not.toContain('e-archived');
    expect(names(plain.streams)).not.toContain('e-archived');
    const modern = ok(await alice.post('/register', { fetch_event_types: ['subscription', 'stream'], client_capabilities: { archived_channels: true } }));
    expect(modern.subscriptions.find((s: Json) => s.name === 'e-archived')).toMatchObject({ is_archived: true });
    expect(names(modern.streams)).toContain('e-archived');
    expect(names(ok(await alice.get('/users/me/subscriptions')).subscriptions)).not.toContain('e-archived');
    expectError(await alice.get(`/streams/${id}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
  });
});

describe('former subscribers of a private channel (CVE-2023-47642)', () => {
  it('lose its metadata everywhere', async () => {
    const id = await createChannel(alice, 'f-leaving', { invite_only: true, principals: [alice.userId, carol.userId] });
    const qc = await openQueue(carol);
    ok(await carol.delete('/users/me/subscriptions', { subscriptions: ['f-leaving'] }));
    expect((await drain(qc)).map((e) => `${e.type}/${e.op}`)).toEqual(['subscription/remove', 'stream/delete']);
    expect(names(ok(await carol.get('/streams', { include_all: true })).streams)).not.toContain('f-leaving');
    expectError(await carol.get(`/streams/${id}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await carol.get(`/streams/${id}/members`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await carol.get(`/users/${alice.userId}/subscriptions/${id}`), 400, 'BAD_REQUEST', 'Invalid channel ID');
    const r = ok(await carol.post('/register', { fetch_event_types: ['subscription', 'stream'] }));
    for (const list of [r.subscriptions, r.unsubscribed, r.never_subscribed, r.streams]) expect(names(list)).not.toContain('f-leaving');
    // Events about it no longer reach them.
    ok(await alice.patch(`/streams/${id}`, { description: 'after carol left' }));
    expect(await drain(qc)).toEqual([]);
    // Nor can they learn it still exists by trying to leave again.
    expectError(await carol.delete('/users/me/subscriptions', { subscriptions: ['f-leaving'] }), 400, 'STREAM_DOES_NOT_EXIST');
  });

  it('former subscribers of a public channel keep it as unsubscribed', async () => {
    await createChannel(alice, 'g-public-leave', { principals: [alice.userId, carol.userId] });
    ok(await carol.delete('/users/me/subscriptions', { subscriptions: ['g-public-leave'] }));
    const r = ok(await carol.post('/register', { fetch_event_types: ['subscription'] }));
    expect(names(r.unsubscribed)).toContain('g-public-leave');
    expect(names(r.never_subscribed)).not.toContain('g-public-leave');
  });
});
