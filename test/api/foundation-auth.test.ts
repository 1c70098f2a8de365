// Authentication: HTTP Basic with the real email and the API key, POST /fetch_api_key, the
// failed-login rate limit, responses that do not tell existing accounts apart
// (CVE-2024-56136), and deactivated users and realms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, newUser, rawRequest, type Reply } from '../helpers/client.js';
import { closeTestDb, deactivateRealm, deactivateUser, setRealmSettings, setUserSettings, userRow } from '../helpers/db.js';

const PASSWORD = 'user-password-1'; // what newUser gives every user

let owner: Client;
let subdomain: string;
let alice: Client;
let hidden: Client; // email visible to administrators only
let gone: Client; // deactivated

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('fauth'));
  alice = await newUser(subdomain, 'Alice Auth');
  hidden = await newUser(subdomain, 'Hidden Email');
  gone = await newUser(subdomain, 'Gone User');
  // Before the realm's first request: the actor loads these from the database.
  await setUserSettings(hidden.userId!, { email_address_visibility: 3 });
  await deactivateUser(gone.userId!);
});

afterAll(closeTestDb);

const withAuth = (c: Client, authorization: string, path = '/users/me') =>
  rawRequest({ method: 'GET', path: `/api/v1${path}`, host: c.host, headers: { Authorization: authorization } });

const basic = (user: string, key: string) => 'Basic ' + Buffer.from(`${user}:${key}`).toString('base64');

const fetchKey = (c: Client, username: string, password: string) =>
  c.anonymous().post('/fetch_api_key', { username, password });

function expectUnauthorized(r: Reply, msg?: string) {
  expect(r.status).toBe(401);
  expect(r.body.result).toBe('error');
  expect(r.body.code).toBe('UNAUTHORIZED');
  expect(r.headers['www-authenticate']).toBe('Basic realm="zulip"');
  if (msg) expect(r.body.msg).toBe(msg);
}

describe('HTTP Basic', () => {
  it('accepts the real email and the API key, the email in any case', async () => {
    const r = await alice.get('/users/me');
    expect(r.status).toBe(200);
    expect(r.body.user_id).toBe(alice.userId);
    const upper = await withAuth(alice, basic(alice.email!.toUpperCase(), alice.apiKey!));
    expect(upper.status).toBe(200);
    expect(upper.body.user_id).toBe(alice.userId);
  });

  it('refuses a wrong key, another user’s key, and a key of the wrong shape', async () => {
    expectUnauthorized(await withAuth(alice, basic(alice.email!, 'a'.repeat(32))), 'Invalid API key');
    expectUnauthorized(await withAuth(alice, basic(alice.email!, owner.apiKey!)), 'Invalid API key');
    expectUnauthorized(await withAuth(alice, basic(alice.email!, alice.apiKey!.slice(1))));
    expectUnauthorized(await withAuth(alice, basic(alice.email!, '')));
    expectUnauthorized(await withAuth(alice, basic('nobody@nowhere.test', alice.apiKey!)), 'Invalid API key');
  });

  it('requires the real email, not the placeholder address', async () => {
    const placeholder = `user${hidden.userId}@${subdomain}.localhost`;
    const me = await hidden.get('/users/me');
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(placeholder);
    expectUnauthorized(await withAuth(hidden, basic(placeholder, hidden.apiKey!)));
  });

  it('answers garbled headers as Zulip does', async () => {
    expectUnauthorized(await withAuth(alice, 'Basic %%%not-base64%%%'), 'Invalid authorization header for basic auth');
    expectUnauthorized(await withAuth(alice, 'Basic ' + Buffer.from('no-colon-here').toString('base64')));
    expectUnauthorized(await withAuth(alice, 'Basic'));
    const bearer = await withAuth(alice, `Bearer ${alice.apiKey}`);
    expect(bearer.status).toBe(400);
    expect(bearer.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'This endpoint requires HTTP basic authentication.' });
  });

  it('refuses a deactivated user', async () => {
    expectUnauthorized(await gone.get('/users/me'), 'Account is deactivated');
    expectUnauthorized(await gone.get('/users'), 'Account is deactivated');
  });
});

describe('POST /fetch_api_key', () => {
  it('exchanges email and password for the API key, email and user id', async () => {
    const r = await fetchKey(alice, alice.email!, PASSWORD);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'success', msg: '', api_key: alice.apiKey, email: alice.email, user_id: alice.userId });
    const upper = await fetchKey(alice, `  ${alice.email!.toUpperCase()} `, PASSWORD);
    expect(upper.body.api_key).toBe(alice.apiKey);
  });

  it('returns the real email for a user whose API email is a placeholder', async () => {
    const r = await fetchKey(hidden, hidden.email!, PASSWORD);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ email: hidden.email, api_key: hidden.apiKey, user_id: hidden.userId });
  });

  it('needs both parameters', async () => {
    const r = await owner.anonymous().post('/fetch_api_key', { password: PASSWORD });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', var_name: 'username' });
  });

  it('answers a wrong password and an unknown email identically', async () => {
    const wrong = await fetchKey(alice, alice.email!, 'not-the-password');
    const unknown = await fetchKey(alice, `nobody.${Date.now()}@${subdomain}.test`, 'not-the-password');
    const deactivated = await fetchKey(gone, gone.email!, 'not-the-password');
    for (const r of [wrong, unknown, deactivated]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
      expect(r.headers['www-authenticate']).toBeUndefined();
    }
  });

  it('tells a deactivated user so only after the right password', async () => {
    const r = await fetchKey(gone, gone.email!, PASSWORD);
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('USER_DEACTIVATED');
  });

  it('stores passwords as scrypt hashes, never as text', async () => {
    const row = await userRow(alice.userId!);
    expect(String(row.password_hash)).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(String(row.password_hash)).not.toContain(PASSWORD);
    const other = await userRow(hidden.userId!);
    expect(other.password_hash).not.toBe(row.password_hash); // salted
  });
});

describe('the failed-login rate limit', () => {
  it('refuses a sixth try within the window with 429 RATE_LIMIT_HIT, even with the right password', async () => {
    const victim = await newUser(subdomain, 'Rate Limited');
    for (let i = 0; i < 5; i++) {
      const r = await fetchKey(victim, victim.email!, `wrong-${i}`);
      expect(r.status, `try ${i + 1}`).toBe(401);
    }
    const limited = await fetchKey(victim, victim.email!, PASSWORD);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ result: 'error', code: 'RATE_LIMIT_HIT', msg: 'API usage exceeded rate limit' });
    expect(limited.body['retry-after']).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The limit is per username: others still log in.
    expect((await fetchKey(alice, alice.email!, PASSWORD)).status).toBe(200);
    // API keys keep working: the limit is on password logins.
    expect((await victim.get('/users/me')).status).toBe(200);
  });

  it('holds when the tries arrive all at once', async () => {
    const target = await newUser(subdomain, 'Parallel Target');
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => fetchKey(target, target.email!, `wrong-${i}`)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
  });

  it('treats an unknown email exactly like an existing one', async () => {
    const existing = await newUser(subdomain, 'Exists Limited');
    const unknown = `ghost.${Date.now()}@${subdomain}.test`;
    for (let i = 0; i < 6; i++) {
      const a = await fetchKey(existing, existing.email!, `wrong-${i}`);
      const b = await fetchKey(existing, unknown, `wrong-${i}`);
      expect(b.status, `try ${i + 1}`).toBe(a.status);
      const { ['retry-after']: _ra, ...restA } = a.body;
      const { ['retry-after']: _rb, ...restB } = b.body;
      expect(restB, `try ${i + 1}`).toEqual(restA);
    }
  });

  it('forgets earlier failures after a successful login', async () => {
    const user = await newUser(subdomain, 'Forgetful User');
    for (let i = 0; i < 4; i++) expect((await fetchKey(user, user.email!, 'wrong')).status).toBe(401);
    expect((await fetchKey(user, user.email!, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await fetchKey(user, user.email!, 'wrong')).status).toBe(401);
    expect((await fetchKey(user, user.email!, PASSWORD)).status).toBe(200);
  });
});

describe('a deactivated realm', () => {
  let realmOwner: Client;
  let member: Client;

  beforeAll(async () => {
    const r = await newRealm('fauthdead');
    realmOwner = r.owner;
    member = await newUser(r.subdomain, 'Late Member');
    // Public access would otherwise let anyone list its users.
    await setRealmSettings(r.subdomain, { enable_spectator_access: true });
    await deactivateRealm(r.subdomain);
  });

  it('refuses its users’ API keys', async () => {
    expectUnauthorized(await realmOwner.get('/users/me'), 'This organization has been deactivated');
    expectUnauthorized(await member.get('/users'), 'This organization has been deactivated');
  });

  it('refuses fetch_api_key with REALM_DEACTIVATED after the right password only', async () => {
    const right = await fetchKey(member, member.email!, PASSWORD);
    expect(right.status).toBe(401);
    expect(right.body.code).toBe('REALM_DEACTIVATED');
    const wrong = await fetchKey(member, member.email!, 'wrong-password');
    expect(wrong.body.code).toBe('AUTHENTICATION_FAILED');
  });

  it('refuses unauthenticated access', async () => {
    expectUnauthorized(await member.anonymous().get('/users'));
  });
});
