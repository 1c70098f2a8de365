import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm } from '../helpers/client.js';
import { drain, expectError, expectSuccess, knownUser, openQueue, systemGroupIds } from './org-helpers.js';

let owner: Client;
let subdomain: string;
let admin: Client;
let member: Client;
let other: Client;
let sys: Record<string, number>;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('orgbot'));
  admin = await knownUser(subdomain, 'Ada Admin', 200);
  member = await knownUser(subdomain, 'Max Maker');
  other = await knownUser(subdomain, 'Nia Nosy');
  sys = await systemGroupIds(owner);
});

async function createBot(as: Client, shortName: string, params: Record<string, unknown> = {}) {
  const r = expectSuccess(await as.post('/bots', { full_name: `${shortName} Bot`, short_name: shortName, ...params }));
  const email = `${shortName}-bot@${subdomain}.localhost`;
  return { id: r.user_id as number, client: new Client(subdomain, email, r.api_key as string, r.user_id as number), body: r };
}

describe('creating bots', () => {
  it('creates a bot owned by the caller, announced to its owner and administrators', async () => {
    const mine = await openQueue(member, { event_types: ['realm_bot'] });
    const admins = await openQueue(admin, { event_types: ['realm_bot'] });
    const nosy = await openQueue(other, { event_types: ['realm_bot', 'realm_user'] });
    const bot = await createBot(member, 'helper');
    expect(bot.body).toMatchObject({ default_sending_stream: null, default_events_register_stream: null, default_all_public_streams: false });
    expect(typeof bot.body.avatar_url).toBe('string');
    expect(bot.body.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    const me = expectSuccess(await bot.client.get('/users/me'));
    expect(me).toMatchObject({ is_bot: true, bot_type: 1, bot_owner_id: member.userId, email: `helper-bot@${subdomain}.localhost`, role: 400 });
    for (const q of [mine, admins]) {
      expect(await drain(q)).toEqual([
        expect.objectContaining({ type: 'realm_bot', op: 'add', bot: expect.objectContaining({ user_id: bot.id, owner_id: member.userId, bot_type: 1, is_active: true }) }),
      ]);
    }
    const seen = await drain(nosy);
    expect(seen.filter((e) => e.type === 'realm_bot')).toEqual([]);
    expect(seen).toContainEqual(expect.objectContaining({ type: 'realm_user', op: 'add', person: expect.objectContaining({ user_id: bot.id, is_bot: true }) }));
    const list = expectSuccess(await member.get('/bots'));
    expect(list.bots).toEqual([expect.objectContaining({ user_id: bot.id, username: `helper-bot@${subdomain}.localhost`, full_name: 'helper Bot' })]);
    expect(expectSuccess(await other.get('/bots')).bots).toEqual([]);
    const reg = expectSuccess(await admin.post('/register', { fetch_event_types: ['realm_bot'] }));
    expect(reg.realm_bots.map((b: { user_id: number }) => b.user_id)).toContain(bot.id);
    const regOther = expectSuccess(await other.post('/register', { fetch_event_types: ['realm_bot'] }));
    expect(regOther.realm_bots).toEqual([]);
  });

  it('checks names, types and who may create', async () => {
    await createBot(member, 'dupe');
    expectError(await member.post('/bots', { full_name: 'Another', short_name: 'dupe' }), 400, 'BAD_REQUEST', 'Username already in use');
    expectError(await member.post('/bots', { full_name: 'dupe Bot', short_name: 'dupe2' }), 400, 'BAD_REQUEST', 'Name is already in use!');
    expectError(await member.post('/bots', { full_name: 'Spaces', short_name: 'has space' }), 400, 'BAD_REQUEST', 'Bad name or username');
    expectError(await member.post('/bots', { full_name: 'Embedded', short_name: 'emb', bot_type: 4 }), 400, 'BAD_REQUEST', 'Invalid bot type');
    const guest = await knownUser(subdomain, 'Gil Guest', 600);
    expectError(await guest.post('/bots', { full_name: 'G', short_name: 'guestbot' }), 400, 'BAD_REQUEST', 'Not allowed for guest users');

    expectSuccess(await owner.patch('/realm', { can_create_bots_group: { new: sys['role:administrators'] } }));
    expectError(await member.post('/bots', { full_name: 'Gen', short_name: 'gen' }), 400, 'BAD_REQUEST', 'Must be an organization administrator');
    // Incoming-webhook bots only need can_create_write_only_bots_group (members by default).
    const hook = await createBot(member, 'hook', { bot_type: 2 });
    expectSuccess(await owner.patch('/realm', { can_create_write_only_bots_group: { new: sys['role:administrators'] } }));
    expectError(await member.post('/bots', { full_name: 'Hook2', short_name: 'hook2', bot_type: 2 }), 400, 'BAD_REQUEST');
    await createBot(admin, 'adminbot');
    expectSuccess(await owner.patch('/realm', { can_create_bots_group: { new: sys['role:members'] }, can_create_write_only_bots_group: { new: sys['role:members'] } }));

    // An incoming webhook bot cannot use the rest of the API.
    expectError(await hook.client.get('/users/me'), 400, 'BAD_REQUEST', 'This API is not available to incoming webhook bots.');
  });
});

describe('editing bots', () => {
  it('lets the owner edit, and nobody else but administrators', async () => {
    const bot = await createBot(member, 'editable');
    const q = await openQueue(member, { event_types: ['realm_bot'] });
    expectSuccess(await member.patch(`/bots/${bot.id}`, { full_name: 'Edited Bot' }));
    expect(await drain(q)).toEqual([expect.objectContaining({ op: 'update', bot: { user_id: bot.id, full_name: 'Edited Bot' } })]);
    expectError(await other.patch(`/bots/${bot.id}`, { full_name: 'Mine now' }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await admin.patch(`/bots/${bot.id}`, { full_name: 'Admin Edited Bot' }));
    expectError(await member.patch(`/bots/${member.userId}`, { full_name: 'x' }), 400, 'BAD_REQUEST', 'No such bot');
  });

  it('never lets a member raise their bot role (CVE-2022-31168)', async () => {
    const bot = await createBot(member, 'climber');
    expectError(await member.patch(`/bots/${bot.id}`, { role: 200 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    expectError(await member.patch(`/bots/${bot.id}`, { role: 100 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    expectError(await member.patch(`/users/${bot.id}`, { role: 200 }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectError(await admin.patch(`/bots/${bot.id}`, { role: 100 }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    expect(expectSuccess(await bot.client.get('/users/me')).role).toBe(400);
    expectSuccess(await admin.patch(`/bots/${bot.id}`, { role: 300 }));
    expect(expectSuccess(await bot.client.get('/users/me')).role).toBe(300);
  });

  it('moves a bot to a new owner', async () => {
    const bot = await createBot(member, 'handover');
    const oldOwner = await openQueue(member, { event_types: ['realm_bot'] });
    const newOwner = await openQueue(other, { event_types: ['realm_bot'] });
    expectError(await other.patch(`/bots/${bot.id}`, { bot_owner_id: other.userId }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await member.patch(`/bots/${bot.id}`, { bot_owner_id: other.userId }));
    expect(await drain(oldOwner)).toEqual([expect.objectContaining({ op: 'delete', bot: { user_id: bot.id } })]);
    expect(await drain(newOwner)).toEqual([expect.objectContaining({ op: 'add', bot: expect.objectContaining({ user_id: bot.id, owner_id: other.userId }) })]);
    expectError(await member.patch(`/bots/${bot.id}`, { full_name: 'not mine' }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectError(await other.patch(`/bots/${bot.id}`, { bot_owner_id: bot.id }), 400, 'BAD_REQUEST');
  });

  it('rotates a bot key', async () => {
    const bot = await createBot(member, 'rotator');
    expectError(await other.post(`/bots/${bot.id}/api_key/regenerate`), 400, 'BAD_REQUEST', 'Insufficient permission');
    const r = expectSuccess(await member.post(`/bots/${bot.id}/api_key/regenerate`));
    expectError(await bot.client.get('/users/me'), 401, 'UNAUTHORIZED');
    expectSuccess(await new Client(subdomain, bot.client.email, r.api_key, bot.id).get('/users/me'));
  });
});

describe('deactivating bots', () => {
  it('through DELETE /bots/{id} by the owner', async () => {
    const bot = await createBot(member, 'retiring');
    const q = await openQueue(member, { event_types: ['realm_bot'] });
    expectError(await other.delete(`/bots/${bot.id}`), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await member.delete(`/bots/${bot.id}`));
    expectError(await bot.client.get('/users/me'), 401, 'UNAUTHORIZED');
    expect(await drain(q)).toEqual([expect.objectContaining({ op: 'update', bot: { user_id: bot.id, is_active: false } })]);
    expectSuccess(await admin.post(`/users/${bot.id}/reactivate`));
    expectSuccess(await bot.client.get('/users/me'));
  });

  it('with their owner', async () => {
    const leaving = await knownUser(subdomain, 'Lou Leaving');
    const bot = await createBot(leaving, 'orphan');
    expectSuccess(await admin.delete(`/users/${leaving.userId}`));
    expectError(await bot.client.get('/users/me'), 401, 'UNAUTHORIZED');
    expectError(await admin.post(`/users/${bot.id}/reactivate`), 400, 'BAD_REQUEST', 'Cannot reactivate a bot whose owner is deactivated.');
  });

  it('of another realm are unreachable', async () => {
    const x = await newRealm('orgbotx');
    const foreign = expectSuccess(await x.owner.post('/bots', { full_name: 'Foreign Bot', short_name: 'foreign' }));
    expectError(await owner.delete(`/bots/${foreign.user_id}`), 400, 'BAD_REQUEST', 'No such bot');
    expectError(await owner.patch(`/bots/${foreign.user_id}`, { role: 200 }), 400, 'BAD_REQUEST', 'No such bot');
  });
});
