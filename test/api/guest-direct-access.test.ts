// A guest limited by can_access_all_users_group (role:members) also sees the users it has
// direct messages with, 1:1 or in a group, as in Zulip: none of them shares a channel with the
// guest here. Before the first message they are out of its sight on every path; the message
// brings them into it (a `realm_user` add first, then the message), and from then on the guest
// sees them in GET /users, register, presence and profile changes, as senders of channel
// messages, and may write to them.
// A server that loads the realm afresh knows it too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { createChannel, events, expectError, fetchMessages, patchRealm, register, sendDirect, sendToChannel, systemGroupId } from '../helpers/messages.js';
import { OwnClient, startOwnServer, type OwnServer } from '../helpers/ownServer.js';
import { closeTestDb, testDb } from '../helpers/db.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let subdomain: string;
let owner: Client;
let guest: Client;
let mona: Client;
let pete: Client;
let gina: Client;
let zed: Client;
let lobbyId: number;
let second: OwnServer | null = null;

const ok = (r: { status: number; body: Obj }) => {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};

/** The user as the viewer's GET /users lists it (a placeholder when out of sight). */
async function listed(viewer: Client, userId: number): Promise<Obj> {
  const members = ok(await viewer.get('/users')).members as Obj[];
  return members.find((m) => m.user_id === userId)!;
}

const realmUserIds = (body: Obj) => (body.realm_users as Obj[]).map((u) => u.user_id as number);
const registeredName = (body: Obj, id: number) => (body.realm_users as Obj[]).find((u) => u.user_id === id)?.full_name;
/** Register for a client that lists only users in sight (others are placeholders without it). */
const IN_SIGHT_ONLY = { client_capabilities: { user_list_incomplete: true } };
/** The sender's name on a message of the lobby, as the guest fetches it. */
async function senderSeen(messageId: number): Promise<string> {
  const fetched = (await fetchMessages(guest, { narrow: [{ operator: 'channel', operand: lobbyId }] })).messages as Obj[];
  return fetched.find((m) => m.id === messageId)!.sender_full_name as string;
}

const addedIds = (evs: Obj[]) => evs.filter((e) => e.type === 'realm_user' && e.op === 'add').map((e) => e.person.user_id as number).sort((a, b) => a - b);

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('gdirect'));
  guest = await newUser(subdomain, 'Gus Guest', 600);
  mona = await newUser(subdomain, 'Mona Member');
  pete = await newUser(subdomain, 'Pete Member');
  gina = await newUser(subdomain, 'Gina Guest', 600);
  zed = await newUser(subdomain, 'Zed Member');
  // The guest's only channel, where members who are not subscribed may post too.
  lobbyId = await createChannel(owner, 'lobby', {}, [guest.userId!]);
  await patchRealm(owner, { can_access_all_users_group: { new: await systemGroupId(owner, 'role:members') } });
});

afterAll(async () => {
  await second?.stop();
  await closeTestDb();
});

describe('a 1:1 direct message', () => {
  it('brings the other user into a limited guest’s sight, with a realm_user add before the message', async () => {
    // Out of sight: a placeholder, refused, a placeholder in register (left out with
    // user_list_incomplete), and not writable.
    expect(await listed(guest, mona.userId!)).toMatchObject({ full_name: 'Unknown user' });
    expectError(await guest.get(`/users/${mona.userId}`), 400, 'BAD_REQUEST', 'Insufficient permission');
    expect(registeredName((await register(guest)).body, mona.userId!)).toBe('Unknown user');
    expect(realmUserIds((await register(guest, IN_SIGHT_ONLY)).body)).not.toContain(mona.userId);
    const inLobby = await sendToChannel(mona, 'lobby', 'visitors', 'from outside');
    expect(await senderSeen(inLobby)).toBe('Unknown user');
    expectError(
      await guest.post('/messages', { type: 'direct', to: `[${mona.userId}]`, content: 'x' }),
      400,
      'BAD_REQUEST',
      'You do not have permission to access some of the recipients.',
    );
    const { queueId } = await register(guest, { event_types: ['realm_user', 'presence', 'message'] });
    ok(await mona.post('/users/me/presence', { status: 'active' }));
    ok(await owner.patch(`/users/${mona.userId}`, { full_name: 'Mona Before' }));
    expect(await events(guest, queueId)).toEqual([]);

    const sent = await sendDirect(mona, [guest.userId!], 'hello guest');
    const got = await events(guest, queueId);
    expect(got.map((e) => [e.type, e.op ?? null])).toEqual([['realm_user', 'add'], ['message', null]]);
    expect(got[0]!.person).toMatchObject({ user_id: mona.userId, full_name: 'Mona Before', is_guest: false });
    expect(got[1]!.message).toMatchObject({ id: sent, sender_id: mona.userId, sender_full_name: 'Mona Before' });

    // In sight: listed, fetched, registered, and the guest hears of her presence and changes.
    expect(await listed(guest, mona.userId!)).toMatchObject({ full_name: 'Mona Before' });
    expect(ok(await guest.get(`/users/${mona.userId}`)).user).toMatchObject({ full_name: 'Mona Before' });
    expect(ok(await guest.get(`/users/${mona.userId}/presence`)).presence).toBeDefined();
    expect(await senderSeen(inLobby)).toBe('Mona Before');
    expect(realmUserIds((await register(guest)).body)).toContain(mona.userId);
    // Turning presence off is announced at once to everyone who sees her.
    ok(await mona.patch('/settings', { presence_enabled: false }));
    ok(await owner.patch(`/users/${mona.userId}`, { full_name: 'Mona Member' }));
    const later = await events(guest, queueId);
    expect(later.filter((e) => e.type === 'presence').map((e) => e.user_id)).toContain(mona.userId);
    expect(later.filter((e) => e.type === 'realm_user' && e.op === 'update')).toEqual([
      expect.objectContaining({ person: { user_id: mona.userId, full_name: 'Mona Member' } }),
    ]);

    // The guest may answer; the conversation brings nobody new, so no further add.
    await sendDirect(guest, [mona.userId!], 'hello Mona');
    await sendDirect(mona, [guest.userId!], 'again');
    expect(addedIds(await events(guest, queueId))).toEqual([mona.userId]);
    // Typing to her is allowed now too.
    ok(await guest.post('/typing', { op: 'start', to: [mona.userId] }));
  });

  it('leaves users outside the conversation out of sight', async () => {
    expect(await listed(guest, zed.userId!)).toMatchObject({ full_name: 'Unknown user' });
    expectError(await guest.get(`/users/${zed.userId}`), 400, 'BAD_REQUEST', 'Insufficient permission');
    // A member sees everyone anyway, and gets no add event for the guest.
    const { queueId } = await register(zed, { event_types: ['realm_user'] });
    await sendDirect(zed, [mona.userId!], 'between members');
    expect(await events(zed, queueId)).toEqual([]);
  });
});

describe('a group direct message', () => {
  it('brings every participant into the sight of each limited guest in it', async () => {
    expect(await listed(guest, pete.userId!)).toMatchObject({ full_name: 'Unknown user' });
    expect(await listed(guest, gina.userId!)).toMatchObject({ full_name: 'Unknown user' });
    expect(await listed(gina, guest.userId!)).toMatchObject({ full_name: 'Unknown user' });
    const gusQueue = (await register(guest, { event_types: ['realm_user', 'message'] })).queueId;
    const ginaQueue = (await register(gina, { event_types: ['realm_user', 'message'] })).queueId;
    const peteQueue = (await register(pete, { event_types: ['realm_user', 'message'] })).queueId;

    await sendDirect(pete, [guest.userId!, gina.userId!], 'hello both');
    const gus = await events(guest, gusQueue);
    expect(addedIds(gus)).toEqual([pete.userId!, gina.userId!].sort((a, b) => a - b));
    expect(gus.at(-1)!.type).toBe('message');
    expect(addedIds(await events(gina, ginaQueue))).toEqual([guest.userId!, pete.userId!].sort((a, b) => a - b));
    expect(addedIds(await events(pete, peteQueue))).toEqual([]);

    expect(await listed(guest, gina.userId!)).toMatchObject({ full_name: 'Gina Guest' });
    expect(await listed(gina, guest.userId!)).toMatchObject({ full_name: 'Gus Guest' });
    expect(await listed(gina, pete.userId!)).toMatchObject({ full_name: 'Pete Member' });
    // Gina never wrote with Mona: still out of her sight.
    expect(await listed(gina, mona.userId!)).toMatchObject({ full_name: 'Unknown user' });
    // The guests may now write to each other directly.
    await sendDirect(gina, [guest.userId!], 'hi Gus');
    expect(addedIds(await events(guest, gusQueue))).toEqual([pete.userId!, gina.userId!].sort((a, b) => a - b));
    // Events about one guest reach the other now.
    ok(await owner.patch(`/users/${guest.userId}`, { full_name: 'Gus Renamed' }));
    const updates = (await events(gina, ginaQueue)).filter((e) => e.type === 'realm_user' && e.op === 'update');
    expect(updates.map((e) => e.person)).toEqual([{ user_id: guest.userId, full_name: 'Gus Renamed' }]);
  });
});

describe('a realm loaded afresh', () => {
  it('counts the direct conversations that have messages', async () => {
    // A conversation is made just before its first message is written; one whose write failed
    // has no message and brings nobody into sight.
    const [row] = await testDb()<{ realm_id: number }[]>`SELECT realm_id FROM users WHERE id = ${guest.userId!}`;
    const pair = [guest.userId!, zed.userId!].sort((a, b) => a - b);
    await testDb()`INSERT INTO message_recipients (realm_id, user_ids) VALUES (${row!.realm_id}, ${pair}::int[])`;
    second = await startOwnServer({}, false);
    const gus = new OwnClient(second.port, guest);
    const members = (await gus.ok('GET', '/users')).members as Obj[];
    const name = (id: number) => members.find((m) => m.user_id === id)!.full_name;
    expect(name(mona.userId!)).toBe('Mona Member');
    expect(name(pete.userId!)).toBe('Pete Member');
    expect(name(gina.userId!)).toBe('Gina Guest');
    expect(name(zed.userId!)).toBe('Unknown user');
    const registered = await gus.ok('POST', '/register', {});
    expect(realmUserIds(registered)).toEqual(expect.arrayContaining([mona.userId, pete.userId, gina.userId]));
    expect(registeredName(registered, zed.userId!)).toBe('Unknown user');
    expect(realmUserIds(await gus.ok('POST', '/register', IN_SIGHT_ONLY))).not.toContain(zed.userId);
  });
});
