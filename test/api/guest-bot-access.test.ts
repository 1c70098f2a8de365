// A guest limited by can_access_all_users_group (role:members) still sees every bot, as in
// Zulip (user_access_restricted_in_realm is false for a bot): bots of users it cannot see are
// listed in full by GET /users and register, fetched by GET /users/{id}, shown by name as
// senders, and the guest hears of them as everyone does: a `realm_user` add when one is
// created, updates when it is renamed, changes owner or is deactivated. The bots' human owners
// stay out of its sight. Every event polled here is checked against the event catalog by the
// test client.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, fetchMessages, patchRealm, register, sendDirect, sendToChannel, systemGroupId } from '../helpers/messages.js';
import { drain, expectError, expectSuccess, openQueue } from './org-helpers.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let subdomain: string;
let owner: Client;
let mona: Client;
let guest: Client;
let lobbyId: number;
let early: { id: number; client: Client };

async function createBot(as: Client, shortName: string, fullName: string): Promise<{ id: number; client: Client }> {
  const r = expectSuccess(await as.post('/bots', { full_name: fullName, short_name: shortName, bot_type: 1 }));
  const email = `${shortName}-bot@${subdomain}.localhost`;
  return { id: r.user_id as number, client: new Client(subdomain, email, r.api_key as string, r.user_id as number) };
}

async function listed(viewer: Client, userId: number): Promise<Obj> {
  const members = expectSuccess(await viewer.get('/users')).members as Obj[];
  return members.find((m) => m.user_id === userId)!;
}

const ids = (list: Obj[]) => list.map((u) => u.user_id as number);

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('gbots'));
  // Mona shares no channel and no conversation with the guest.
  mona = await newUser(subdomain, 'Mona Member');
  guest = await newUser(subdomain, 'Gus Guest', 600);
  lobbyId = await createChannel(owner, 'lobby', {}, [guest.userId!]);
  early = await createBot(mona, 'early', 'Early Bot');
  await patchRealm(owner, { can_access_all_users_group: { new: await systemGroupId(owner, 'role:members') } });
});

describe('bots of users out of a limited guest’s sight', () => {
  it('are listed, fetched and registered in full, while their owner stays hidden', async () => {
    expect(await listed(guest, early.id)).toMatchObject({ user_id: early.id, full_name: 'Early Bot', is_bot: true, bot_type: 1, bot_owner_id: mona.userId });
    expect(await listed(guest, mona.userId!)).toMatchObject({ full_name: 'Unknown user' });
    const some = expectSuccess(await guest.get('/users', { user_ids: JSON.stringify([early.id, mona.userId]) })).members as Obj[];
    expect(some.find((m) => m.user_id === early.id)).toMatchObject({ full_name: 'Early Bot' });
    expect(some.find((m) => m.user_id === mona.userId)).toMatchObject({ full_name: 'Unknown user' });
    expect(expectSuccess(await guest.get(`/users/${early.id}`)).user).toMatchObject({ full_name: 'Early Bot', is_bot: true });
    expect(expectSuccess(await guest.get(`/users/early-bot@${subdomain}.localhost`)).user).toMatchObject({ user_id: early.id });
    const { body } = await register(guest);
    expect(ids(body.realm_users as Obj[])).toContain(early.id);
    expect((body.realm_users as Obj[]).find((u) => u.user_id === mona.userId)).toMatchObject({ full_name: 'Unknown user' });
    const inSightOnly = (await register(guest, { client_capabilities: { user_list_incomplete: true } })).body;
    expect(ids(inSightOnly.realm_users as Obj[])).toContain(early.id);
    expect(ids(inSightOnly.realm_users as Obj[])).not.toContain(mona.userId);
    // Only the bot's owner and administrators get it in realm_bots.
    expect(ids((body.realm_bots ?? []) as Obj[])).not.toContain(early.id);
  });

  it('keeps refusing what it refused before: the hidden owner, unknown ids, bot presence', async () => {
    expectError(await guest.get(`/users/${mona.userId}`), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(await guest.get('/users/999999999'), 400, 'BAD_REQUEST', 'No such user');
    expectError(await guest.get('/users/not-an-id'), 400, 'BAD_REQUEST');
    // The bot is in sight, so the answer is the bot one, not "No such user".
    expectError(await guest.get(`/users/${early.id}/presence`), 400, 'BAD_REQUEST', 'Presence is not supported for bot users.');
    // A guest may not make bots of its own.
    expect((await guest.post('/bots', { full_name: 'Guest Bot', short_name: 'guestbot' })).status).toBe(400);
  });

  it('show the bot as the sender of its channel messages, fetched and live', async () => {
    const q = await openQueue(guest, { event_types: ['message'] });
    const sent = await sendToChannel(early.client, 'lobby', 'bots', 'beep');
    const live = await drain(q);
    expect(live).toEqual([expect.objectContaining({ type: 'message', message: expect.objectContaining({ id: sent, sender_id: early.id, sender_full_name: 'Early Bot' }) })]);
    const fetched = (await fetchMessages(guest, { narrow: JSON.stringify([{ operator: 'channel', operand: lobbyId }]) })).messages as Obj[];
    expect(fetched.find((m) => m.id === sent)).toMatchObject({ sender_full_name: 'Early Bot', sender_email: `early-bot@${subdomain}.localhost` });
    // Mona's own messages there still show as "Unknown user".
    const hers = await sendToChannel(mona, 'lobby', 'bots', 'from outside');
    const again = (await fetchMessages(guest, { narrow: JSON.stringify([{ operator: 'channel', operand: lobbyId }]) })).messages as Obj[];
    expect(again.find((m) => m.id === hers)).toMatchObject({ sender_full_name: 'Unknown user' });
  });

  it('may be written to and mentioned by the guest', async () => {
    await sendDirect(guest, [early.id], 'hello bot');
    // A mention of the bot is rendered; one of its hidden owner stays plain text.
    const mentioned = await sendToChannel(guest, 'lobby', 'bots', '@**Early Bot** and @**Mona Member**');
    const content = expectSuccess(await guest.get(`/messages/${mentioned}`)).message.content as string;
    expect(content).toContain(`data-user-id="${early.id}"`);
    expect(content).not.toContain(`data-user-id="${mona.userId}"`);
    // The bot's owner is still out of reach.
    expectError(
      await guest.post('/messages', { type: 'direct', to: JSON.stringify([mona.userId]), content: 'x' }),
      400,
      'BAD_REQUEST',
      'You do not have permission to access some of the recipients.',
    );
  });
});

describe('events about bots', () => {
  it('tell a limited guest of a bot’s creation, changes, owner change and deactivation', async () => {
    const q = await openQueue(guest, { event_types: ['realm_user', 'realm_bot'] });
    const bot = await createBot(mona, 'later', 'Later Bot');
    const created = await drain(q);
    // As everyone: the realm_user add with the full bot; no realm_bot event (owner and admins only).
    expect(created).toEqual([
      expect.objectContaining({
        type: 'realm_user',
        op: 'add',
        person: expect.objectContaining({ user_id: bot.id, full_name: 'Later Bot', is_bot: true, bot_type: 1, bot_owner_id: mona.userId, is_active: true }),
      }),
    ]);
    expect(await listed(guest, bot.id)).toMatchObject({ full_name: 'Later Bot' });

    expectSuccess(await mona.patch(`/bots/${bot.id}`, { full_name: 'Renamed Bot' }));
    expect(await drain(q)).toEqual([
      expect.objectContaining({ type: 'realm_user', op: 'update', person: { user_id: bot.id, full_name: 'Renamed Bot' } }),
    ]);

    expectSuccess(await owner.patch(`/bots/${bot.id}`, { bot_owner_id: owner.userId }));
    expect(await drain(q)).toEqual([
      expect.objectContaining({ type: 'realm_user', op: 'update', person: { user_id: bot.id, bot_owner_id: owner.userId } }),
    ]);

    expectSuccess(await owner.delete(`/bots/${bot.id}`));
    expect(await drain(q)).toEqual([
      expect.objectContaining({ type: 'realm_user', op: 'update', person: { user_id: bot.id, is_active: false } }),
    ]);
    // Deactivated, it is among the guest's non-active users (not a placeholder).
    const { body } = await register(guest);
    expect(ids(body.realm_non_active_users as Obj[])).toContain(bot.id);
    expect(ids(body.realm_users as Obj[])).not.toContain(bot.id);

    // Events about the hidden owner still do not reach the guest.
    expectSuccess(await owner.patch(`/users/${mona.userId}`, { full_name: 'Mona Renamed' }));
    expect(await drain(q)).toEqual([]);
  });

  it('are refused to a guest who is not the bot’s owner or an administrator', async () => {
    expectError(await guest.patch(`/bots/${early.id}`, { full_name: 'Guest Named' }), 400, 'BAD_REQUEST');
    expectError(await guest.delete(`/bots/${early.id}`), 400, 'BAD_REQUEST');
    expect(await listed(guest, early.id)).toMatchObject({ full_name: 'Early Bot', is_active: true });
  });
});
