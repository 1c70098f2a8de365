// A guest limited by can_access_all_users_group (role:members) sees only itself and the users
// it shares a channel with, on every path that returns users: the user list (placeholders),
// single fetches (refused), presence, typing, message senders (fetched and live), group
// members, subscriber lists and subscription checks. Carol shares no channel with the guest;
// Bob does.
import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { events, expectError, fetchMessages, register, sendToChannel } from '../helpers/messages.js';

let subdomain: string;
let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let carolEmail: string;
let sharedId: number;
let membersOnlyId: number;

const ok = (r: { status: number; body: Record<string, any> }) => { // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

function expectPlaceholder(u: Record<string, unknown>, id: number): void {
  expect(u).toMatchObject({
    user_id: id, full_name: 'Unknown user', email: `user${id}@${subdomain}.localhost`, delivery_email: null,
    is_admin: false, is_owner: false, is_guest: false, is_bot: false, role: 400, is_active: true, timezone: '', avatar_version: 1,
    avatar_url: '/static/images/unknown-user-avatar.png', profile_data: {},
  });
}

beforeAll(async () => {
  const realm = await newRealm('gaccess');
  subdomain = realm.subdomain;
  owner = realm.owner;
  bob = await newUser(subdomain, 'Bob Member');
  carol = await newUser(subdomain, 'Carol Member');
  guest = await newUser(subdomain, 'Gus Guest', 600);
  carolEmail = carol.email!;
  const members = ok(await owner.get('/user_groups')).user_groups.find((g: { name: string }) => g.name === 'role:members').id;
  ok(await owner.patch('/realm', { can_access_all_users_group: { new: members } }));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'shared' }], principals: [owner.userId, bob.userId, guest.userId] }));
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'members only' }], principals: [owner.userId, bob.userId, carol.userId] }));
  sharedId = ok(await owner.get('/get_stream_id', { stream: 'shared' })).stream_id;
  membersOnlyId = ok(await owner.get('/get_stream_id', { stream: 'members only' })).stream_id;
  // The server's placeholder domain is the realm host without its port.
  expect(subdomain).toBeTruthy();
});

describe('GET /users', () => {
  it('lists users out of sight as Zulip’s "Unknown user" placeholders', async () => {
    const members = ok(await guest.get('/users')).members as Array<Record<string, unknown>>;
    const byId = new Map(members.map((m) => [m.user_id as number, m]));
    expect(byId.get(bob.userId!)).toMatchObject({ full_name: 'Bob Member' });
    expect(byId.get(guest.userId!)).toMatchObject({ full_name: 'Gus Guest' });
    expectPlaceholder(byId.get(carol.userId!)!, carol.userId!);
    expect(JSON.stringify(members)).not.toContain('Carol');
    const some = ok(await guest.get('/users', { user_ids: [carol.userId, bob.userId] })).members as Array<Record<string, unknown>>;
    expectPlaceholder(some.find((m) => m.user_id === carol.userId)!, carol.userId!);
    // Members see everyone.
    const full = ok(await bob.get('/users')).members as Array<Record<string, unknown>>;
    expect(full.find((m) => m.user_id === carol.userId)).toMatchObject({ full_name: 'Carol Member' });
  });
});

describe('GET /users/{user_id} and /users/{email}', () => {
  it('refuses a user out of sight, by id, by real address and by placeholder address', async () => {
    expectError(await guest.get(`/users/${carol.userId}`), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(await guest.get(`/users/${encodeURIComponent(carolEmail)}`), 400, 'BAD_REQUEST');
    expectError(await guest.get(`/users/user${carol.userId}@${subdomain}.localhost`), 400, 'BAD_REQUEST');
    expect(ok(await guest.get(`/users/${bob.userId}`)).user).toMatchObject({ full_name: 'Bob Member' });
    expect(ok(await bob.get(`/users/${carol.userId}`)).user).toMatchObject({ full_name: 'Carol Member' });
  });
});

describe('presence', () => {
  it('tells nothing of a user out of sight', async () => {
    ok(await carol.post('/users/me/presence', { status: 'active' }));
    ok(await bob.post('/users/me/presence', { status: 'active' }));
    expect((await guest.get(`/users/${carol.userId}/presence`)).status).toBe(400);
    expect(ok(await guest.get(`/users/${bob.userId}/presence`)).presence).toBeDefined();
    const all = ok(await guest.get('/realm/presence')).presences as Record<string, unknown>;
    expect(Object.keys(all)).not.toContain(carolEmail);
    expect(JSON.stringify(all)).not.toContain(`"${carol.userId}"`);
  });
});

describe('typing', () => {
  it('refuses a guest typing to a user out of sight, and hides such a user typing in its channel', async () => {
    const { queueId } = await register(guest, { event_types: ['typing'], client_capabilities: { stream_typing_notifications: true } });
    expectError(await guest.post('/typing', { op: 'start', to: [carol.userId] }), 400, 'BAD_REQUEST', 'You do not have permission to access some of the recipients.');
    ok(await carol.post('/typing', { op: 'start', type: 'stream', stream_id: sharedId, topic: 't' }));
    ok(await bob.post('/typing', { op: 'start', type: 'stream', stream_id: sharedId, topic: 't' }));
    const typing = await events(guest, queueId, 'typing');
    expect(typing.map((e) => e.sender.user_id)).toEqual([bob.userId]);
  });
});

describe('message senders', () => {
  it('shows a sender out of sight as "Unknown user", in fetched messages and in message events', async () => {
    const { queueId } = await register(guest, { event_types: ['message'] });
    const fromCarol = await sendToChannel(carol, 'shared', 'visitors', 'hello from outside');
    const fromBob = await sendToChannel(bob, 'shared', 'visitors', 'hello from inside');
    const fetched = (await fetchMessages(guest, { narrow: [{ operator: 'channel', operand: sharedId }] })).messages as Array<Record<string, unknown>>;
    const carolMsg = fetched.find((m) => m.id === fromCarol)!;
    expect(carolMsg).toMatchObject({
      sender_id: carol.userId, sender_full_name: 'Unknown user', sender_email: `user${carol.userId}@${subdomain}.localhost`,
      avatar_url: '/static/images/unknown-user-avatar.png', content: '<p>hello from outside</p>',
    });
    expect(fetched.find((m) => m.id === fromBob)).toMatchObject({ sender_full_name: 'Bob Member' });
    const live = await events(guest, queueId, 'message');
    expect(live.find((e) => e.message.id === fromCarol)!.message).toMatchObject({ sender_full_name: 'Unknown user', sender_email: `user${carol.userId}@${subdomain}.localhost` });
    expect(live.find((e) => e.message.id === fromBob)!.message).toMatchObject({ sender_full_name: 'Bob Member' });
    // Bob sees Carol as she is.
    const bobView = (await fetchMessages(bob, { narrow: [{ operator: 'channel', operand: sharedId }] })).messages as Array<Record<string, unknown>>;
    expect(bobView.find((m) => m.id === fromCarol)).toMatchObject({ sender_full_name: 'Carol Member' });
  });
});

describe('group members', () => {
  it('are not listed to a guest at all; a member out of sight stays hidden', async () => {
    const created = ok(await owner.post('/user_groups/create', { name: 'crew', description: 'd', members: [bob.userId, carol.userId] }));
    expect(ok(await bob.get(`/user_groups/${created.group_id}/members`)).members.sort()).toEqual([bob.userId, carol.userId].sort());
    expectError(await guest.get(`/user_groups/${created.group_id}/members`), 400, 'BAD_REQUEST', 'Not allowed for guest users');
    expectError(await guest.get(`/user_groups/${created.group_id}/members/${carol.userId}`), 400, 'BAD_REQUEST');
  });
});

describe('subscribers', () => {
  it('lists only users in sight and refuses subscription checks of users out of sight', async () => {
    const subs = ok(await guest.get(`/streams/${sharedId}/members`)).subscribers as number[];
    expect(subs).not.toContain(carol.userId);
    expect(subs).toContain(bob.userId);
    expect((await guest.get(`/streams/${membersOnlyId}/members`)).status).toBe(400);
    expectError(await guest.get(`/users/${carol.userId}/subscriptions/${sharedId}`), 400, 'BAD_REQUEST', 'Insufficient permission');
    expect(ok(await guest.get(`/users/${bob.userId}/subscriptions/${sharedId}`)).is_subscribed).toBe(true);
  });
});
