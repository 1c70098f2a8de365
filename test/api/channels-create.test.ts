// Creating channels through POST /users/me/subscriptions: who may, with what settings, and
// who hears about it.
import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { setRealmSettings } from '../helpers/db.js';
import { channel, createChannel, drain, expectError, ok, openQueue, systemGroupIds } from './channels-helpers.js';

let owner: Client;
let admin: Client;
let alice: Client;
let bob: Client;
let guest: Client;
let sys: Record<string, number>;
let otherOwner: Client;

beforeAll(async () => {
  const realm = await newRealm('chcreate');
  owner = realm.owner;
  admin = await newUser(realm.subdomain, 'Ada Admin', 200);
  alice = await newUser(realm.subdomain, 'Alice Member');
  bob = await newUser(realm.subdomain, 'Bob Member');
  guest = await newUser(realm.subdomain, 'Gina Guest', 600);
  sys = await systemGroupIds(realm.subdomain);
  otherOwner = (await newRealm('chcreatex')).owner;
});

describe('creating a public channel', () => {
  it('subscribes the creator and reports by user id', async () => {
    const r = ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: ' lobby ', description: 'Hello **world**' }] }));
    expect(r.subscribed).toEqual({ [String(alice.userId)]: ['lobby'] });
    expect(r.already_subscribed).toEqual({});
    expect(r).not.toHaveProperty('unauthorized');
    const again = ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'LOBBY' }] }));
    expect(again.subscribed).toEqual({});
    expect(again.already_subscribed).toEqual({ [String(alice.userId)]: ['lobby'] });
  });

  it('has the channel defaults', async () => {
    const id = ok(await alice.get('/get_stream_id', { stream: 'lobby' })).stream_id;
    const s = await channel(alice, id);
    expect(s).toMatchObject({
      stream_id: id, name: 'lobby', description: 'Hello **world**', creator_id: alice.userId,
      invite_only: false, is_web_public: false, history_public_to_subscribers: true, is_archived: false,
      message_retention_days: null, topics_policy: 'inherit', first_message_id: null, folder_id: null,
      is_recently_active: true, subscriber_count: 1, stream_weekly_traffic: null, stream_post_policy: 1,
      is_announcement_only: false,
      can_administer_channel_group: { direct_members: [alice.userId], direct_subgroups: [] },
      can_add_subscribers_group: sys['role:nobody'],
      can_remove_subscribers_group: sys['role:administrators'],
      can_send_message_group: sys['role:everyone'],
      can_subscribe_group: sys['role:nobody'],
      can_move_messages_out_of_channel_group: sys['role:nobody'],
      can_move_messages_within_channel_group: sys['role:nobody'],
      can_resolve_topics_group: sys['role:nobody'],
    });
    // Channel settings from after our feature level (406) are not there.
    for (const later of ['can_delete_any_message_group', 'can_delete_own_message_group', 'can_create_topic_group']) expect(s).not.toHaveProperty(later);
    expect(s.rendered_description).toContain('<p>');
    expect(typeof s.date_created).toBe('number');
  });

  it('tells members, not guests nor other realms; the creator gets the subscription', async () => {
    const [qa, qb, qg, qx] = await Promise.all([openQueue(alice, { include_subscribers: true }), openQueue(bob), openQueue(guest), openQueue(otherOwner)]);
    const id = await createChannel(alice, 'announcements');
    const aliceEvents = await drain(qa);
    expect(aliceEvents.map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/add']);
    expect(aliceEvents[1]!.subscriptions[0]).toMatchObject({ stream_id: id, name: 'announcements', subscribers: [alice.userId], in_home_view: true });
    const bobEvents = await drain(qb);
    expect(bobEvents).toEqual([
      expect.objectContaining({ type: 'stream', op: 'create', streams: [expect.objectContaining({ stream_id: id })] }),
      expect.objectContaining({ type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: [alice.userId] }),
    ]);
    expect(await drain(qg)).toEqual([]);
    expect(await drain(qx)).toEqual([]);
  });
});

describe('creating a private channel', () => {
  it('is announced to the creator and administrators only', async () => {
    const [qa, qb, qg, qo] = await Promise.all([openQueue(alice), openQueue(bob), openQueue(guest), openQueue(owner)]);
    ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }], invite_only: true }));
    expect((await drain(qa)).map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/add']);
    expect((await drain(qo)).map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/peer_add']);
    expect(await drain(qb)).toEqual([]);
    expect(await drain(qg)).toEqual([]);
    const s = await channel(alice, ok(await alice.get('/get_stream_id', { stream: 'secret' })).stream_id);
    expect(s).toMatchObject({ invite_only: true, history_public_to_subscribers: false });
  });

  it('cannot be joined by others, unless errors are not fatal', async () => {
    expectError(await bob.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }] }), 400, 'BAD_REQUEST', 'Unable to access channel (secret).');
    // Administrators cannot read it either, so they cannot join or add people.
    expectError(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }] }), 400, 'BAD_REQUEST', 'Unable to access channel (secret).');
    const r = ok(await bob.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret' }, { name: 'bobs-place' }], authorization_errors_fatal: false }));
    expect(r.unauthorized).toEqual(['secret']);
    expect(r.subscribed).toEqual({ [String(bob.userId)]: ['bobs-place'] });
  });

  it('keeps shared history only when asked', async () => {
    ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'shared' }], invite_only: true, history_public_to_subscribers: true }));
    expect(await channel(alice, ok(await alice.get('/get_stream_id', { stream: 'shared' })).stream_id)).toMatchObject({ history_public_to_subscribers: true });
    // A public channel always shares its history.
    ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'open-history' }], history_public_to_subscribers: false }));
    expect(await channel(alice, ok(await alice.get('/get_stream_id', { stream: 'open-history' })).stream_id)).toMatchObject({ history_public_to_subscribers: true });
  });
});

describe('creation rules', () => {
  it('refuses guests', async () => {
    expectError(await guest.post('/users/me/subscriptions', { subscriptions: [{ name: 'guest-room' }] }), 400, 'BAD_REQUEST', 'Not allowed for guest users');
  });

  it('checks names', async () => {
    const create = (name: string) => alice.post('/users/me/subscriptions', { subscriptions: [{ name }] });
    expectError(await create('   '), 400, 'BAD_REQUEST', "Channel name can't be empty.");
    expectError(await create('x'.repeat(61)), 400, 'BAD_REQUEST', 'Channel name too long (limit: 60 characters).');
    expectError(await create('bad\u0007name'), 400, 'BAD_REQUEST', 'Invalid character in channel name, at position 4.');
    ok(await create('é'.repeat(60)));
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'toolong', description: 'd'.repeat(1025) }] }), 400, 'BAD_REQUEST', /too long/);
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: 'lobby' }), 400, 'BAD_REQUEST');
  });

  it('lets only owners set message retention', async () => {
    expectError(
      await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'kept' }], message_retention_days: 30 }),
      400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner',
    );
    expectError(
      await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'kept' }], message_retention_days: 'soon' }),
      400, 'REQUEST_VARIABLE_INVALID', "Bad value for 'message_retention_days': soon",
    );
    const id = await createChannel(owner, 'kept', { message_retention_days: 30 });
    expect((await channel(owner, id)).message_retention_days).toBe(30);
    const forever = await createChannel(owner, 'forever', { message_retention_days: 'unlimited' });
    expect((await channel(owner, forever)).message_retention_days).toBe(-1);
    // The realm default is anyone's to ask for.
    await createChannel(alice, 'ordinary', { message_retention_days: 'realm_default' });
  });

  it('makes default channels for administrators only, never private ones', async () => {
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'start-here' }], is_default_stream: true }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(
      await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'start-here' }], is_default_stream: true, invite_only: true }),
      400, 'BAD_REQUEST', 'A default channel cannot be private.',
    );
    const qb = await openQueue(bob, { event_types: ['default_streams'] });
    const id = await createChannel(owner, 'start-here', { is_default_stream: true });
    expect(await drain(qb)).toEqual([expect.objectContaining({ type: 'default_streams', default_streams: expect.arrayContaining([id]) })]);
    const reg = ok(await bob.post('/register', { fetch_event_types: ['default_streams'] }));
    expect(reg.realm_default_streams).toContain(id);
    expect(ok(await guest.post('/register', { fetch_event_types: ['default_streams'] })).realm_default_streams).toEqual([]);
  });

  it('validates permission group settings', async () => {
    expectError(
      await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'g1' }], can_add_subscribers_group: sys['role:everyone'] }),
      400, 'BAD_REQUEST', "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.",
    );
    expectError(
      await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'g1' }], can_send_message_group: sys['role:internet'] }),
      400, 'BAD_REQUEST', "'can_send_message_group' setting cannot be set to 'role:internet' group.",
    );
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'g1' }], can_send_message_group: 99999999 }), 400, 'BAD_REQUEST', 'Invalid user group ID: 99999999');
    const otherRealmGroup = (await systemGroupIds(otherOwner.subdomain))['role:everyone'];
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'g1' }], can_send_message_group: otherRealmGroup }), 400, 'BAD_REQUEST', `Invalid user group ID: ${otherRealmGroup}`);
    expectError(
      await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'g1' }], can_administer_channel_group: { direct_members: [otherOwner.userId], direct_subgroups: [] } }),
      400, 'BAD_REQUEST', `Invalid user ID: ${otherOwner.userId}`,
    );
    const id = await createChannel(alice, 'g1', {
      can_send_message_group: sys['role:administrators'],
      can_administer_channel_group: { direct_members: [bob.userId, bob.userId], direct_subgroups: [] },
      can_remove_subscribers_group: { direct_members: [], direct_subgroups: [sys['role:moderators']] },
    });
    expect(await channel(alice, id)).toMatchObject({
      can_send_message_group: sys['role:administrators'],
      stream_post_policy: 2,
      is_announcement_only: true,
      can_administer_channel_group: { direct_members: [bob.userId], direct_subgroups: [] },
      can_remove_subscribers_group: sys['role:moderators'],
    });
  });

  it('validates topics policy and folder', async () => {
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 't1' }], topics_policy: 'sometimes' }), 400, 'BAD_REQUEST', 'Invalid topics_policy');
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 't1' }], folder_id: 987654 }), 400, 'BAD_REQUEST', 'Invalid channel folder ID');
    const id = await createChannel(alice, 't1', { topics_policy: 'disable_empty_topic' });
    expect((await channel(alice, id)).topics_policy).toBe('disable_empty_topic');
  });

  it('refuses web-public channels while spectator access is off', async () => {
    expectError(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'www' }], is_web_public: true }), 400, 'BAD_REQUEST', 'Web-public channels are not enabled.');
  });
});

describe('subscribing other users', () => {
  it('adds them by id or email and tells them', async () => {
    const qb = await openQueue(bob, { include_subscribers: true });
    const id = await createChannel(alice, 'team');
    await drain(qb);
    const r = ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'team' }], principals: [bob.userId, alice.userId], send_new_subscription_messages: false }));
    expect(r.subscribed).toEqual({ [String(bob.userId)]: ['team'] });
    expect(r.already_subscribed).toEqual({ [String(alice.userId)]: ['team'] });
    const events = await drain(qb);
    expect(events).toEqual([expect.objectContaining({ type: 'subscription', op: 'add', subscriptions: [expect.objectContaining({ stream_id: id, subscribers: [alice.userId, bob.userId].sort((a, b) => a! - b!) })] })]);
    const byEmail = ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'team' }], principals: [admin.email!] }));
    expect(byEmail.subscribed).toEqual({ [String(admin.userId)]: ['team'] });
  });

  it('rejects unknown users and users of other realms', async () => {
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'team' }], principals: [99999999] }), 400, 'BAD_REQUEST', 'Invalid user ID: 99999999');
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'team' }], principals: [otherOwner.userId] }), 400, 'BAD_REQUEST', `Invalid user ID: ${otherOwner.userId}`);
    expectError(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'team' }], principals: ['nobody@nowhere.test'] }), 400, 'BAD_REQUEST');
  });

  it('sends guests the channel before their subscription', async () => {
    const qg = await openQueue(guest);
    const id = await createChannel(alice, 'with-guests');
    expect(await drain(qg)).toEqual([]);
    ok(await alice.post('/users/me/subscriptions', { subscriptions: [{ name: 'with-guests' }], principals: [guest.userId], send_new_subscription_messages: false }));
    const events = await drain(qg);
    expect(events.map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/add']);
    expect(events[0]!.streams[0].stream_id).toBe(id);
  });
});

describe('an organization with restrictive policies', () => {
  let rOwner: Client;
  let rAdmin: Client;
  let rMember: Client;
  let rGuest: Client;

  beforeAll(async () => {
    const realm = await newRealm('chpolicy');
    rOwner = realm.owner;
    rAdmin = await newUser(realm.subdomain, 'Rae Admin', 200);
    rMember = await newUser(realm.subdomain, 'Ray Member');
    rGuest = await newUser(realm.subdomain, 'Rex Guest', 600);
    const groups = await systemGroupIds(realm.subdomain);
    // Before the realm's first request: the actor loads these settings when it starts.
    await setRealmSettings(realm.subdomain, {
      enable_spectator_access: true,
      can_create_private_channel_group: groups['role:administrators'],
      can_add_subscribers_group: groups['role:administrators'],
    });
  });

  it('applies the private-channel creation policy', async () => {
    expectError(await rMember.post('/users/me/subscriptions', { subscriptions: [{ name: 'p' }], invite_only: true }), 400, 'BAD_REQUEST', 'Insufficient permission');
    await createChannel(rAdmin, 'p', { invite_only: true });
  });

  it('applies who may add subscribers to existing channels, but not to new ones', async () => {
    await createChannel(rOwner, 'existing');
    expectError(
      await rMember.post('/users/me/subscriptions', { subscriptions: [{ name: 'existing' }], principals: [rGuest.userId] }),
      400, 'BAD_REQUEST', 'Insufficient permission',
    );
    ok(await rMember.post('/users/me/subscriptions', { subscriptions: [{ name: 'existing' }] }));
    ok(await rMember.post('/users/me/subscriptions', { subscriptions: [{ name: 'members-new' }], principals: [rGuest.userId] }));
  });

  it('lets only owners create web-public channels, which everyone sees', async () => {
    expectError(await rAdmin.post('/users/me/subscriptions', { subscriptions: [{ name: 'www' }], is_web_public: true }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(
      await rOwner.post('/users/me/subscriptions', { subscriptions: [{ name: 'www' }], is_web_public: true, invite_only: true }),
      400, 'BAD_REQUEST', 'Invalid parameters',
    );
    const qg = await openQueue(rGuest);
    const id = await createChannel(rOwner, 'www', { is_web_public: true });
    expect((await drain(qg)).map((e) => `${e.type}/${e.op}`)).toEqual(['stream/create', 'subscription/peer_add']);
    expect((await channel(rGuest, id)).is_web_public).toBe(true);
    const listed = ok(await rGuest.get('/streams', { include_web_public: true })).streams;
    expect(listed.map((s: { name: string }) => s.name)).toContain('www');
  });
});
