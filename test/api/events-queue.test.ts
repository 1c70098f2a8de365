// The event queue machinery: register, long-poll, heartbeats, pruning, deletion, isolation.
import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, port, type Client } from '../helpers/client.js';
import { eventsNow, queueFor, register, sleep } from './events-support.js';

let owner: Client;
let bob: Client;
let guest: Client;
let stranger: Client;

beforeAll(async () => {
  const realm = await newRealm('evq');
  owner = realm.owner;
  bob = await newUser(realm.subdomain, 'Bob Builder');
  guest = await newUser(realm.subdomain, 'Gus Guest', 600);
  stranger = (await newRealm('evqx')).owner;
});

/** Changes the owner's settings to make an event for the owner's queues. */
const touch = (c: Client, value: boolean) => c.patch('/settings', { enter_sends: value });

describe('POST /register', () => {
  it('answers with a queue, versions and the initial state', async () => {
    const body = await register(owner);
    expect(body).toMatchObject({
      result: 'success',
      last_event_id: -1,
      zulip_feature_level: expect.any(Number),
      zulip_version: expect.any(String),
      zulip_merge_base: expect.any(String),
      max_message_length: 10000,
      max_topic_length: 60,
      max_stream_name_length: 60,
      max_stream_description_length: 1024,
      realm_empty_topic_display_name: 'general chat',
      realm_filters: [],
      realm_emoji: {},
      cross_realm_bots: [],
      user_id: owner.userId,
      full_name: 'Olivia Owner',
      is_owner: true,
    });
    expect(body.queue_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.event_queue_longpoll_timeout_seconds).toBeGreaterThanOrEqual(90);
    expect(body.user_settings).toMatchObject({ enter_sends: false, web_home_view: 'inbox', timezone: '' });
    expect(body.realm_users.map((u: { user_id: number }) => u.user_id)).toEqual(
      expect.arrayContaining([owner.userId, bob.userId, guest.userId]),
    );
    expect(body.realm_users[0]).not.toHaveProperty('is_active');
    expect(body.realm_non_active_users).toEqual([]);
    expect(body.presences).toBeTypeOf('object');
    expect(body.server_timestamp).toBeTypeOf('number');
    expect(body.alert_words).toEqual([]);
    expect(body.realm_users.find((u: { user_id: number }) => u.user_id === bob.userId)).toMatchObject({ profile_data: {}, is_bot: false });
    expect(body.realm_user_settings_defaults).toMatchObject({ enter_sends: false, email_address_visibility: 1, available_notification_sounds: expect.arrayContaining(['zulip']) });
    // Zulip's web app reads the organization's default language from here.
    expect(body.realm_user_settings_defaults).toHaveProperty('default_language', 'en');
    expect(body).toMatchObject({ realm_linkifiers: [], realm_playgrounds: [], realm_domains: [], can_create_public_streams: true });
  });

  it('returns only the sections named in fetch_event_types', async () => {
    const body = await register(owner, { fetch_event_types: ['alert_words'] });
    expect(body.alert_words).toEqual([]);
    expect(body).not.toHaveProperty('realm_users');
    expect(body).not.toHaveProperty('max_message_length');
    expect(body).not.toHaveProperty('user_settings');
  });

  it('uses event_types for the initial state when fetch_event_types is absent', async () => {
    const body = await register(owner, { event_types: ['realm_user'] });
    expect(body.realm_users).toBeDefined();
    expect(body).not.toHaveProperty('alert_words');
  });

  it('gives the legacy settings keys only to clients without user_settings_object', async () => {
    const legacy = await register(owner, { fetch_event_types: ['update_display_settings', 'update_global_notifications'] });
    expect(legacy).toMatchObject({ enter_sends: false, twenty_four_hour_time: false, enable_sounds: true, timezone: '' });
    expect(legacy.emojiset_choices).toBeInstanceOf(Array);
    const modern = await register(owner, {
      fetch_event_types: ['update_display_settings', 'update_global_notifications'],
      client_capabilities: { user_settings_object: true },
    });
    expect(modern).not.toHaveProperty('enter_sends');
    expect(modern).not.toHaveProperty('enable_sounds');
  });

  it('refuses all_public_streams for guests', async () => {
    const r = await guest.post('/register', { all_public_streams: true });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'User not authorized for this query' });
    expect((await bob.post('/register', { all_public_streams: true, fetch_event_types: [] })).status).toBe(200);
  });

  it('checks the narrow', async () => {
    const bad = await owner.post('/register', { narrow: [['search', 'x']] });
    expect(bad.status).toBe(400);
    expect(bad.body.msg).toBe('Operator search not supported.');
    const followed = await owner.post('/register', { narrow: [{ operator: 'is', operand: 'followed' }] });
    expect(followed.body.msg).toBe('Operand followed not supported.');
    const ok = await owner.post('/register', { narrow: [['stream', 'general'], ['topic', 'x']], fetch_event_types: [] });
    expect(ok.status).toBe(200);
    const malformed = await owner.post('/register', { narrow: 'not json' });
    expect(malformed.status).toBe(400);
  });

  it('checks include_subscribers and client_capabilities', async () => {
    expect((await owner.post('/register', { include_subscribers: 'partial', fetch_event_types: [] })).status).toBe(400);
    expect((await owner.post('/register', { include_subscribers: 'true', fetch_event_types: [] })).status).toBe(200);
    const bad = await owner.post('/register', { include_subscribers: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('BAD_REQUEST');
    const caps = await owner.post('/register', { client_capabilities: '{"empty_topic_name": "yes"}' });
    expect(caps.status).toBe(400);
  });
});

describe('GET /events', () => {
  it('answers at once with dont_block, and with the queued events', async () => {
    const q = await queueFor(owner);
    expect(await eventsNow(owner, q)).toEqual([]);
    await touch(owner, true);
    const events = await eventsNow(owner, q);
    expect(events.map((e) => e.type)).toContain('user_settings');
    expect(events[0]!.id).toBe(0);
  });

  it('parks a poll until an event arrives', async () => {
    const q = await queueFor(owner);
    const started = Date.now();
    const pending = owner.get('/events', { queue_id: q, last_event_id: -1 });
    await sleep(300);
    await touch(owner, false);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body.queue_id).toBe(q);
    expect(r.body.events.some((e: { type: string }) => e.type === 'user_settings')).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('sends a heartbeat when nothing happens (HEARTBEAT_SECONDS=2 here)', async () => {
    const q = await queueFor(bob);
    const started = Date.now();
    const r = await bob.get('/events', { queue_id: q, last_event_id: -1 });
    const waited = Date.now() - started;
    expect(r.status).toBe(200);
    expect(r.body.events).toEqual([{ type: 'heartbeat', id: 0 }]);
    expect(waited).toBeGreaterThanOrEqual(1900);
    expect(waited).toBeLessThan(4000);
    // The heartbeat is acknowledged like any event.
    const next = await bob.get('/events', { queue_id: q, last_event_id: 0, dont_block: true });
    expect(next.body.events).toEqual([]);
  });

  it('finishes a parked poll when a new poll arrives on the same queue', async () => {
    const q = await queueFor(owner);
    const first = owner.get('/events', { queue_id: q, last_event_id: -1 });
    await sleep(200);
    const second = owner.get('/events', { queue_id: q, last_event_id: -1, dont_block: true });
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect(a.body.events).toEqual([]);
    expect(b.body.events).toEqual([]);
  });

  it('prunes acknowledged events and refuses impossible ids', async () => {
    const q = await queueFor(owner);
    await touch(owner, true);
    await touch(owner, false);
    const all = await eventsNow(owner, q);
    const ids = all.map((e) => e.id as number);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const last = ids[ids.length - 1]!;
    const first = ids[0]!;
    const pruned = await owner.get('/events', { queue_id: q, last_event_id: first, dont_block: true });
    expect(pruned.status).toBe(200);
    expect(pruned.body.events.map((e: { id: number }) => e.id)).toEqual(ids.slice(1));
    const older = await owner.get('/events', { queue_id: q, last_event_id: first - 1, dont_block: true });
    expect(older.status).toBe(400);
    expect(older.body).toMatchObject({ code: 'BAD_REQUEST', msg: `An event newer than ${first - 1} has already been pruned!` });
    const future = await owner.get('/events', { queue_id: q, last_event_id: last + 5, dont_block: true });
    expect(future.status).toBe(400);
    expect(future.body.msg).toBe(`Event ${last + 5} was not in this queue`);
  });

  it('answers BAD_EVENT_QUEUE_ID for unknown queues and queues of other users or realms', async () => {
    const unknown = await owner.get('/events', { queue_id: 'no-such-queue', last_event_id: -1, dont_block: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'no-such-queue', msg: 'Bad event queue ID: no-such-queue' });
    const q = await queueFor(owner);
    const otherUser = await bob.get('/events', { queue_id: q, last_event_id: -1, dont_block: true });
    expect(otherUser.status).toBe(400);
    expect(otherUser.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: q });
    const otherRealm = await stranger.get('/events', { queue_id: q, last_event_id: -1, dont_block: true });
    expect(otherRealm.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: q });
    expect((await bob.delete('/events', { queue_id: q })).body.code).toBe('BAD_EVENT_QUEUE_ID');
    // The owner's queue survived those attempts.
    expect((await owner.get('/events', { queue_id: q, last_event_id: -1, dont_block: true })).status).toBe(200);
  });

  it('registers a queue when queue_id is absent (non-blocking only)', async () => {
    const r = await owner.get('/events', { dont_block: true, event_types: ['user_settings'] });
    expect(r.status).toBe(200);
    expect(r.body.events).toEqual([]);
    const q = r.body.queue_id as string;
    await touch(owner, true);
    const events = await eventsNow(owner, q);
    expect(events.map((e) => e.type)).toEqual(['user_settings']);
    const blocking = await owner.get('/events', {});
    expect(blocking.status).toBe(400);
    expect(blocking.body.msg).toBe("Missing 'queue_id' argument");
  });

  it('delivers only the event types asked for', async () => {
    const q = await queueFor(owner, { event_types: ['alert_words'] });
    await touch(owner, false);
    await owner.post('/users/me/alert_words', { alert_words: ['zebra'] });
    const events = await eventsNow(owner, q);
    expect(events.map((e) => e.type)).toEqual(['alert_words']);
  });
});

describe('DELETE /events', () => {
  it('frees the queue and ends its parked poll', async () => {
    const q = await queueFor(owner);
    const parked = owner.get('/events', { queue_id: q, last_event_id: -1 });
    await sleep(200);
    const del = await owner.delete('/events', { queue_id: q });
    expect(del.status).toBe(200);
    expect(del.body.result).toBe('success');
    expect((await parked).body.events).toEqual([]);
    const after = await owner.get('/events', { queue_id: q, last_event_id: -1, dont_block: true });
    expect(after.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id: q });
    const missing = await owner.delete('/events', {});
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('REQUEST_VARIABLE_MISSING');
  });
});

describe('a client that disconnects mid-poll', () => {
  it('loses nothing: events that arrive later wait in the queue', async () => {
    const q = await queueFor(owner);
    const req = http.request({
      host: '127.0.0.1',
      port: port(),
      path: `/api/v1/events?queue_id=${q}&last_event_id=-1`,
      agent: false,
      headers: {
        Host: owner.host,
        Authorization: 'Basic ' + Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64'),
      },
    });
    req.on('error', () => undefined);
    req.end();
    await sleep(300);
    req.destroy();
    await sleep(200);
    await touch(owner, true);
    const events = await eventsNow(owner, q);
    expect(events.some((e) => e.type === 'user_settings')).toBe(true);
    // And the queue still long-polls normally.
    const next = owner.get('/events', { queue_id: q, last_event_id: events[events.length - 1]!.id });
    await sleep(200);
    await touch(owner, false);
    expect((await next).body.events.some((e: { type: string }) => e.type === 'user_settings')).toBe(true);
  });
});
