// Realms from the Host header, and isolation: every id, email and key a client sends is
// resolved inside the realm of the host it called.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, Client, newRealm, newUser, port, rawRequest } from '../helpers/client.js';
import { closeTestDb, realmRow } from '../helpers/db.js';

let a: { owner: Client; subdomain: string };
let b: { owner: Client; subdomain: string };
let bobB: Client;

beforeAll(async () => {
  a = await newRealm('frealma');
  b = await newRealm('frealmb');
  bobB = await newUser(b.subdomain, 'Bob Other');
});

afterAll(closeTestDb);

const get = (host: string, path: string, headers: Record<string, string> = {}) =>
  rawRequest({ method: 'GET', path: `/api/v1${path}`, host, headers });

const basic = (c: Client) => ({ Authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64') });

describe('the realm of a request', () => {
  it('is <subdomain>.<EXTERNAL_HOST>, whatever the case and the port', async () => {
    const hosts = [
      `${a.subdomain}.localhost:${port()}`,
      `${a.subdomain.toUpperCase()}.LOCALHOST:${port()}`,
      `${a.subdomain}.localhost`,
      `${a.subdomain}.localhost:1`,
    ];
    for (const host of hosts) {
      const r = await get(host, '/server_settings');
      expect(r.status, host).toBe(200);
      expect(r.body.realm_name, host).toBe(`Realm ${a.subdomain}`);
      expect(r.body.realm_url, host).toBe(`http://${a.subdomain}.localhost:${port()}`);
    }
    const other = await get(`${b.subdomain}.localhost:${port()}`, '/server_settings');
    expect(other.body.realm_name).toBe(`Realm ${b.subdomain}`);
  });

  it('answers an unknown subdomain with 404 NONEXISTENT_SUBDOMAIN, with or without credentials', async () => {
    const host = `nosuchrealm${Date.now()}.localhost:${port()}`;
    const checks = [
      await get(host, '/server_settings'),
      await get(host, '/users'),
      await get(host, '/users/me', basic(a.owner)),
      await rawRequest({
        method: 'POST', path: '/api/v1/fetch_api_key', host,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: a.owner.email!, password: 'owner-password-1' }).toString(),
      }),
    ];
    for (const r of checks) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ result: 'error', msg: 'Invalid subdomain', code: 'NONEXISTENT_SUBDOMAIN' });
    }
  });

  it('is the root realm on EXTERNAL_HOST, on www. and on any host that does not match', async () => {
    // The root realm ('' subdomain) is shared by the whole test run: create it unless another
    // file already did, then read its name from the database.
    if (!(await realmRow(''))) {
      await admin([
        'create-realm', '--subdomain', '', '--name', 'Root organization',
        '--owner-email', 'root-owner@root.test', '--owner-password', 'root-password-1',
      ]).catch((err: Error) => {
        if (!/already in use/.test(String((err as { stderr?: string }).stderr ?? err.message))) throw err;
      });
    }
    const root = await realmRow('');
    expect(root).not.toBeNull();
    for (const host of [`localhost:${port()}`, `www.localhost:${port()}`, `127.0.0.1:${port()}`, 'chat.example.org', `${a.subdomain}.example.org`]) {
      const r = await get(host, '/server_settings');
      expect(r.status, host).toBe(200);
      expect(r.body.realm_name, host).toBe(root!.name);
      expect(r.body.realm_url, host).toBe(`http://localhost:${port()}`);
    }
  });
});

describe('isolation between realms', () => {
  it('refuses one realm’s credentials on another realm’s host', async () => {
    for (const host of [b.owner.host, `localhost:${port()}`]) {
      const r = await get(host, '/users/me', basic(a.owner));
      expect(r.status, host).toBe(401);
      expect(r.body.code, host).toBe('UNAUTHORIZED');
      expect(r.headers['www-authenticate'], host).toBe('Basic realm="zulip"');
    }
  });

  it('treats a user id of another realm as nonexistent', async () => {
    const byId = await a.owner.get(`/users/${bobB.userId}`);
    expect(byId.status).toBe(400);
    expect(byId.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'No such user' });
    const list = await a.owner.get('/users', { user_ids: [a.owner.userId, bobB.userId] });
    expect(list.status).toBe(400);
    expect(list.body).toMatchObject({ code: 'BAD_REQUEST', msg: `Invalid user ID: ${bobB.userId}` });
  });

  it('treats an email or placeholder address of another realm as nonexistent', async () => {
    for (const key of [bobB.email!, `user${bobB.userId}@${a.subdomain}.localhost`, `user${bobB.userId}@${b.subdomain}.localhost`]) {
      const r = await a.owner.get(`/users/${encodeURIComponent(key)}`);
      expect(r.status, key).toBe(400);
      expect(r.body.msg, key).toBe('No such user');
    }
  });

  it('lists only the realm’s own users', async () => {
    const r = await a.owner.get('/users');
    expect(r.status).toBe(200);
    const ids = r.body.members.map((m: { user_id: number }) => m.user_id);
    expect(ids).toContain(a.owner.userId);
    expect(ids).not.toContain(bobB.userId);
    expect(ids).not.toContain(b.owner.userId);
  });

  it('lets the same email exist in two realms as two accounts', async () => {
    const email = `shared.${Date.now()}@both.test`;
    const inA = await admin(['create-user', '--realm', a.subdomain, '--email', email, '--password', 'password-in-a', '--full-name', 'Sam A']);
    const inB = await admin(['create-user', '--realm', b.subdomain, '--email', email, '--password', 'password-in-b', '--full-name', 'Sam B']);
    expect(inA.user_id).not.toBe(inB.user_id);
    const meA = await a.owner.as(inA).get('/users/me');
    expect(meA.body).toMatchObject({ user_id: inA.user_id, full_name: 'Sam A' });
    const meB = await b.owner.as(inB).get('/users/me');
    expect(meB.body).toMatchObject({ user_id: inB.user_id, full_name: 'Sam B' });
    // Each realm's password opens only that realm's account.
    const fetchA = await a.owner.anonymous().post('/fetch_api_key', { username: email, password: 'password-in-a' });
    expect(fetchA.body).toMatchObject({ result: 'success', user_id: inA.user_id, api_key: inA.api_key });
    const wrongRealm = await a.owner.anonymous().post('/fetch_api_key', { username: email, password: 'password-in-b' });
    expect(wrongRealm.status).toBe(401);
    expect(wrongRealm.body.code).toBe('AUTHENTICATION_FAILED');
    // A key is only good on its own realm's host.
    const crossed = await get(b.owner.host, '/users/me', basic(a.owner.as(inA)));
    expect(crossed.status).toBe(401);
  });
});
