// Users: GET /users (user_ids, client_gravatar, public access), GET /users/{id|email},
// GET /users/me, POST /users, and the User object itself (spec 2.1): roles, email visibility
// with placeholder addresses, and the gravatar rule for avatar_url.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser, type Reply } from '../helpers/client.js';
import { closeTestDb, deactivateUser, grantCanCreateUsers, setRealmSettings, setUserSettings } from '../helpers/db.js';

type Person = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// As Zulip's format_user_row: `bot_type` and `bot_owner_id` only for bots.
const USER_KEYS = [
  'avatar_url', 'avatar_version', 'date_joined', 'delivery_email', 'email', 'full_name',
  'is_active', 'is_admin', 'is_bot', 'is_guest', 'is_owner', 'role', 'timezone', 'user_id',
].sort();

const VISIBILITY = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

let subdomain: string;
let owner: Client;
let admin: Client;
let moderator: Client;
let member: Client;
let guest: Client;
let formerly: Client; // deactivated
let creator: Client; // an administrator holding can_create_users
let coOwner: Client; // an owner without it
/** One member per email visibility setting. */
const hidden: Record<keyof typeof VISIBILITY, Client> = {} as never;
const started = Date.now();

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('fusers'));
  [admin, moderator, member, guest, formerly, creator, coOwner] = await Promise.all([
    newUser(subdomain, 'Ada Admin', 200),
    newUser(subdomain, 'Mo Moderator', 300),
    newUser(subdomain, 'Meg Member', 400),
    newUser(subdomain, 'Gus Guest', 600),
    newUser(subdomain, 'Fay Former', 400),
    newUser(subdomain, 'Cat Creator', 200),
    newUser(subdomain, 'Otto Owner', 100),
  ]);
  await grantCanCreateUsers(creator.userId!);
  await Promise.all(
    (Object.keys(VISIBILITY) as (keyof typeof VISIBILITY)[]).map(async (name) => {
      hidden[name] = await newUser(subdomain, `Vis ${name.toLowerCase()}`);
      await setUserSettings(hidden[name].userId!, { email_address_visibility: VISIBILITY[name] });
    }),
  );
  await deactivateUser(formerly.userId!);
});

afterAll(closeTestDb);

const placeholder = (c: Client) => `user${c.userId}@${subdomain}.localhost`;
const gravatar = (email: string) =>
  `https://secure.gravatar.com/avatar/${createHash('md5').update(email.toLowerCase()).digest('hex')}?d=identicon&version=1`;

async function members(viewer: Client, params: Record<string, unknown> = {}): Promise<Map<number, Person>> {
  const r = await viewer.get('/users', params);
  expect(r.status).toBe(200);
  return new Map((r.body.members as Person[]).map((m) => [m.user_id as number, m]));
}

function expectError(r: Reply, status: number, code: string, msg?: string) {
  expect(r.status).toBe(status);
  expect(r.body.result).toBe('error');
  expect(r.body.code).toBe(code);
  if (msg !== undefined) expect(r.body.msg).toBe(msg);
}

describe('the User object', () => {
  it('has exactly the fields of spec 2.1', async () => {
    const all = await members(owner);
    for (const person of all.values()) expect(Object.keys(person).sort()).toEqual(USER_KEYS);
    const me = all.get(member.userId!)!;
    expect(me).toMatchObject({
      user_id: member.userId, full_name: 'Meg Member', email: member.email, delivery_email: member.email,
      is_active: true, is_bot: false, timezone: '', avatar_version: 1,
    });
    expect(me).not.toHaveProperty('bot_type');
    expect(me.date_joined).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/);
    expect(Math.abs(Date.parse(me.date_joined) - started)).toBeLessThan(120_000);
  });

  it('reports every role with its flags', async () => {
    const all = await members(owner);
    const flags = (c: Client) => {
      const p = all.get(c.userId!)!;
      return { role: p.role, is_owner: p.is_owner, is_admin: p.is_admin, is_guest: p.is_guest };
    };
    expect(flags(owner)).toEqual({ role: 100, is_owner: true, is_admin: true, is_guest: false });
    expect(flags(admin)).toEqual({ role: 200, is_owner: false, is_admin: true, is_guest: false });
    expect(flags(moderator)).toEqual({ role: 300, is_owner: false, is_admin: false, is_guest: false });
    expect(flags(member)).toEqual({ role: 400, is_owner: false, is_admin: false, is_guest: false });
    expect(flags(guest)).toEqual({ role: 600, is_owner: false, is_admin: false, is_guest: true });
  });

  it('lists deactivated users with is_active false', async () => {
    const all = await members(member);
    expect(all.get(formerly.userId!)).toMatchObject({ is_active: false, full_name: 'Fay Former' });
    const one = await member.get(`/users/${formerly.userId}`);
    expect(one.status).toBe(200);
    expect(one.body.user.is_active).toBe(false);
  });

  it('follows each user’s email visibility, with placeholder addresses', async () => {
    // Which viewers may see the real address, per setting (the user always sees their own).
    const allowed: Record<keyof typeof VISIBILITY, Client[]> = {
      EVERYONE: [owner, admin, moderator, member, guest],
      MEMBERS: [owner, admin, moderator, member],
      MODERATORS: [owner, admin, moderator],
      ADMINS: [owner, admin],
      NOBODY: [],
    };
    for (const viewer of [owner, admin, moderator, member, guest]) {
      const all = await members(viewer, { client_gravatar: 'false' });
      for (const [name, target] of Object.entries(hidden) as [keyof typeof VISIBILITY, Client][]) {
        const person = all.get(target.userId!)!;
        const sees = allowed[name].includes(viewer);
        const label = `${viewer.email} viewing ${name}`;
        expect(person.delivery_email, label).toBe(sees ? target.email : null);
        expect(person.email, label).toBe(name === 'EVERYONE' ? target.email : placeholder(target));
      }
    }
    for (const target of Object.values(hidden)) {
      const self = await target.get(`/users/${target.userId}`);
      expect(self.body.user.delivery_email).toBe(target.email);
    }
  });

  it('gives avatar_url null under client_gravatar only where `email` is the real address', async () => {
    const byDefault = await members(member); // client_gravatar defaults to true
    expect(byDefault.get(owner.userId!)!.avatar_url).toBeNull();
    // The client computes Gravatars from `email`, a placeholder unless the address is visible
    // to everyone (Zulip's get_users_for_api): for the others the server sends the URL, even
    // to viewers who see the real address in delivery_email.
    expect(byDefault.get(hidden.MEMBERS.userId!)!.avatar_url).toBe(gravatar(hidden.MEMBERS.email!));
    expect(byDefault.get(hidden.ADMINS.userId!)!.avatar_url).toBe(gravatar(hidden.ADMINS.email!));
    expect(byDefault.get(hidden.NOBODY.userId!)!.avatar_url).toBe(gravatar(hidden.NOBODY.email!));
    const asAdmin = await members(admin, { client_gravatar: 'true' });
    expect(asAdmin.get(hidden.ADMINS.userId!)!.avatar_url).toBe(gravatar(hidden.ADMINS.email!));
    const noGravatar = await members(member, { client_gravatar: 'false' });
    for (const person of noGravatar.values()) expect(person.avatar_url).toBe(gravatar(person.delivery_email ?? findEmail(person.user_id)));
  });
});

function findEmail(userId: number): string {
  const all = [owner, admin, moderator, member, guest, formerly, creator, coOwner, ...Object.values(hidden)];
  return all.find((c) => c.userId === userId)!.email!;
}

describe('GET /users', () => {
  it('lists every user of the realm', async () => {
    const all = await members(guest);
    const expected = [owner, admin, moderator, member, guest, formerly, creator, coOwner, ...Object.values(hidden)].map((c) => c.userId);
    expect([...all.keys()].sort((x, y) => x - y)).toEqual(expected.sort((x, y) => x! - y!));
  });

  it('limits the result to user_ids', async () => {
    const some = await members(member, { user_ids: [guest.userId, owner.userId] });
    expect([...some.keys()].sort()).toEqual([guest.userId, owner.userId].sort());
    const none = await members(member, { user_ids: [] });
    expect(none.size).toBe(0);
    const twice = await member.get('/users', { user_ids: [guest.userId, guest.userId] });
    expect(twice.body.members).toHaveLength(1);
  });

  it('refuses unknown ids in user_ids', async () => {
    expectError(await member.get('/users', { user_ids: [owner.userId, 999_999_999] }), 400, 'BAD_REQUEST', 'Invalid user ID: 999999999');
  });

  it('needs credentials when the organization has no public access', async () => {
    const r = await owner.anonymous().get('/users');
    expectError(r, 401, 'UNAUTHORIZED');
    expect(r.headers['www-authenticate']).toBe('Basic realm="zulip"');
  });
});

describe('GET /users with public access', () => {
  let pub: { owner: Client; subdomain: string };
  let shy: Client;

  beforeAll(async () => {
    pub = await newRealm('fuserspub');
    shy = await newUser(pub.subdomain, 'Shy Person');
    await setUserSettings(shy.userId!, { email_address_visibility: VISIBILITY.ADMINS });
    await setRealmSettings(pub.subdomain, { enable_spectator_access: true });
  });

  it('lets anyone list users, without real emails and with avatar URLs', async () => {
    const r = await pub.owner.anonymous().get('/users');
    expect(r.status).toBe(200);
    const byId = new Map((r.body.members as Person[]).map((m) => [m.user_id, m]));
    expect(byId.get(pub.owner.userId)).toMatchObject({ delivery_email: null, avatar_url: gravatar(pub.owner.email!) });
    expect(byId.get(shy.userId)).toMatchObject({
      delivery_email: null, email: `user${shy.userId}@${pub.subdomain}.localhost`, avatar_url: gravatar(shy.email!),
    });
    const server = await pub.owner.anonymous().get('/server_settings');
    expect(server.body.realm_web_public_access_enabled).toBe(true);
  });

  it('still refuses bad credentials, and other endpoints stay private', async () => {
    const bad = new Client(pub.subdomain, pub.owner.email, 'x'.repeat(32));
    expectError(await bad.get('/users'), 401, 'UNAUTHORIZED');
    expectError(await pub.owner.anonymous().get(`/users/${shy.userId}`), 401, 'UNAUTHORIZED');
    expectError(await pub.owner.anonymous().get('/users/me'), 401, 'UNAUTHORIZED');
  });
});

describe('GET /users/{user_id} and /users/{email}', () => {
  it('fetches a user by id', async () => {
    const r = await member.get(`/users/${owner.userId}`);
    expect(r.status).toBe(200);
    expect(r.body.result).toBe('success');
    expect(Object.keys(r.body.user).sort()).toEqual(USER_KEYS);
    expect(r.body.user).toMatchObject({ user_id: owner.userId, role: 100, avatar_url: null });
    const withUrl = await member.get(`/users/${owner.userId}`, { client_gravatar: 'false' });
    expect(withUrl.body.user.avatar_url).toBe(gravatar(owner.email!));
  });

  it('adds profile_data when custom profile fields are asked for', async () => {
    const r = await member.get(`/users/${owner.userId}`, { include_custom_profile_fields: 'true' });
    expect(r.body.user.profile_data).toEqual({});
  });

  it('answers unknown ids and unknown text with No such user', async () => {
    for (const key of ['999999999', '0', 'not-an-email', 'nobody@nowhere.test']) {
      expectError(await member.get(`/users/${key}`), 400, 'BAD_REQUEST', 'No such user');
    }
  });

  it('finds a user by a real email the caller may see, in any case', async () => {
    const r = await member.get(`/users/${encodeURIComponent(owner.email!.toUpperCase())}`);
    expect(r.status).toBe(200);
    expect(r.body.user.user_id).toBe(owner.userId);
    const seen = await admin.get(`/users/${encodeURIComponent(hidden.ADMINS.email!)}`);
    expect(seen.body.user).toMatchObject({ user_id: hidden.ADMINS.userId, delivery_email: hidden.ADMINS.email });
  });

  it('does not find a user by a real email the caller may not see', async () => {
    for (const [viewer, target] of [[member, hidden.ADMINS], [guest, hidden.MEMBERS], [admin, hidden.NOBODY]] as const) {
      expectError(await viewer.get(`/users/${encodeURIComponent(target.email!)}`), 400, 'BAD_REQUEST', 'No such user');
    }
  });

  it('finds every user by the placeholder address', async () => {
    for (const target of [hidden.NOBODY, hidden.ADMINS, owner]) {
      const r = await guest.get(`/users/${encodeURIComponent(placeholder(target))}`);
      expect(r.status).toBe(200);
      expect(r.body.user.user_id).toBe(target.userId);
    }
    const upper = await guest.get(`/users/${encodeURIComponent(placeholder(hidden.NOBODY).toUpperCase())}`);
    expect(upper.body.user.user_id).toBe(hidden.NOBODY.userId);
    const wrongDomain = await guest.get(`/users/user${hidden.NOBODY.userId}@elsewhere.test`);
    expectError(wrongDomain, 400, 'BAD_REQUEST', 'No such user');
  });
});

describe('GET /users/me', () => {
  it('returns the caller’s own User fields at the top level, with the real email', async () => {
    const r = await hidden.NOBODY.get('/users/me');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      result: 'success', msg: '', user_id: hidden.NOBODY.userId, email: placeholder(hidden.NOBODY),
      delivery_email: hidden.NOBODY.email, role: 400, avatar_url: gravatar(hidden.NOBODY.email!), profile_data: {},
    });
    const asGuest = await guest.get('/users/me');
    expect(asGuest.body).toMatchObject({ role: 600, is_guest: true, email: guest.email });
  });
});

describe('POST /users', () => {
  const email = () => `new.${Date.now()}.${Math.random().toString(36).slice(2, 7)}@${subdomain}.test`;

  it('lets the owner (who holds can_create_users) create a member who can log in', async () => {
    const address = email();
    const r = await owner.post('/users', { email: address, password: 'fresh-password-1', full_name: 'Nina New' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'success', msg: '', user_id: expect.any(Number) });
    const listed = await members(member);
    expect(listed.get(r.body.user_id)).toMatchObject({ full_name: 'Nina New', role: 400, delivery_email: address, is_active: true });
    const login = await owner.anonymous().post('/fetch_api_key', { username: address, password: 'fresh-password-1' });
    expect(login.body).toMatchObject({ result: 'success', user_id: r.body.user_id, email: address });
    const me = await owner.as({ email: address, api_key: login.body.api_key, user_id: r.body.user_id }).get('/users/me');
    expect(me.body.user_id).toBe(r.body.user_id);
  });

  it('tells users who can see the new user with a realm_user add event', async () => {
    const queue = await member.post('/register', { event_types: ['realm_user'] });
    expect(queue.status).toBe(200);
    const address = email();
    const created = await owner.post('/users', { email: address, password: 'fresh-password-2', full_name: 'Evan Event' });
    expect(created.status).toBe(200);
    const events = await member.get('/events', { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: 'true' });
    const add = (events.body.events as Person[]).find((e) => e.type === 'realm_user' && e.op === 'add');
    expect(add?.person).toMatchObject({ user_id: created.body.user_id, full_name: 'Evan Event', role: 400, is_active: true });
  });

  it('refuses an email already in use in the organization, in any case', async () => {
    const r = await owner.post('/users', { email: member.email!.toUpperCase(), password: 'fresh-password-3', full_name: 'Copy Cat' });
    expectError(r, 400, 'BAD_REQUEST');
    expect(r.body.msg).toMatch(/already in use/);
  });

  it('creates one account when the same email is sent several times at once', async () => {
    const address = email();
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => owner.post('/users', { email: address, password: 'fresh-password-4', full_name: 'Racy Racer' })),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 200)) expectError(r, 400, 'BAD_REQUEST');
  });

  it('lets an administrator holding can_create_users create users', async () => {
    const r = await creator.post('/users', { email: email(), password: 'fresh-password-7', full_name: 'By Creator' });
    expect(r.status).toBe(200);
    expect((await member.get(`/users/${r.body.user_id}`)).body.user).toMatchObject({ full_name: 'By Creator', role: 400 });
  });

  it('refuses administrators and owners without can_create_users, and everyone below', async () => {
    const args = { email: email(), password: 'fresh-password-5', full_name: 'Not Created' };
    expectError(await admin.post('/users', args), 400, 'BAD_REQUEST', 'User not authorized to create users');
    expectError(await coOwner.post('/users', args), 400, 'BAD_REQUEST', 'User not authorized to create users');
    for (const c of [moderator, member, guest]) {
      expectError(await c.post('/users', args), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    }
    expectError(await owner.anonymous().post('/users', args), 401, 'UNAUTHORIZED');
    const all = await members(owner);
    expect([...all.values()].some((p) => p.delivery_email === args.email)).toBe(false);
  });

  it('validates its parameters', async () => {
    expectError(await owner.post('/users', { password: 'fresh-password-6', full_name: 'No Email' }), 400, 'REQUEST_VARIABLE_MISSING');
    expectError(await owner.post('/users', { email: email(), password: 'fresh-password-6' }), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'full_name' argument");
    expectError(await owner.post('/users', { email: 'not an email', password: 'fresh-password-6', full_name: 'Bad Email' }), 400, 'BAD_REQUEST');
    expectError(await owner.post('/users', { email: email(), password: 'fresh-password-6', full_name: '   ' }), 400, 'BAD_REQUEST');
    expectError(await owner.post('/users', { email: email(), password: 'x', full_name: 'Weak Password' }), 400, 'BAD_REQUEST');
  });
});
