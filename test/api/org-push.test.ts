import http from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { encodeForm, newRealm, type Client, type Reply } from '../helpers/client.js';
import { startServer, stopServer } from '../helpers/globalSetup.js';
import { closeTestDb, testDb } from '../helpers/db.js';
import { expectError, expectSuccess, knownUser } from './org-helpers.js';

let owner: Client;
let subdomain: string;

const KEY = Buffer.alloc(32, 7).toString('base64');
const BLOB = Buffer.from(JSON.stringify({ token: 'abc', token_kind: 'fcm', timestamp: 1 })).toString('base64');

const registration = (extra: Record<string, unknown> = {}) => ({
  token_kind: 'fcm',
  push_account_id: 42,
  push_public_key: KEY,
  bouncer_public_key: KEY,
  encrypted_push_registration: BLOB,
  ...extra,
});

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('orgpush'));
});

afterAll(closeTestDb);

describe('POST /mobile_push/register', () => {
  it('validates every field, standard base64 included', async () => {
    expectError(await owner.post('/mobile_push/register', registration({ token_kind: 'gcm' })), 400, 'BAD_REQUEST');
    const missing = await owner.post('/mobile_push/register', { ...registration(), push_public_key: undefined });
    expectError(missing, 400, 'REQUEST_VARIABLE_MISSING');
    expectError(await owner.post('/mobile_push/register', registration({ push_account_id: 'x' })), 400, 'BAD_REQUEST');
    // URL-safe alphabet and missing padding are not standard base64.
    const urlSafe = Buffer.alloc(33, 251).toString('base64url');
    expectError(await owner.post('/mobile_push/register', registration({ push_public_key: urlSafe })), 400, 'BAD_REQUEST', 'Invalid `push_public_key`');
    expectError(await owner.post('/mobile_push/register', registration({ bouncer_public_key: 'abc' })), 400, 'BAD_REQUEST', 'Invalid `bouncer_public_key`');
    expectError(await owner.post('/mobile_push/register', registration({ encrypted_push_registration: 'not base64!' })), 400, 'BAD_REQUEST', 'Invalid `encrypted_push_registration`');
  });

  it('answers PUSH_SERVICE_NOT_CONFIGURED without a push relay', async () => {
    expectError(await owner.post('/mobile_push/register', registration()), 400, 'PUSH_SERVICE_NOT_CONFIGURED');
  });

  it('stores the registration on a server with a relay', async () => {
    const server = await startServer({ DATABASE_URL: inject('databaseUrl'), DEMO_REALM: 'false', PUSH_RELAY_URL: 'https://push.example.test' });
    try {
      const r = await requestOn(server.port, owner, 'POST', '/mobile_push/register', registration());
      expectSuccess(r);
      // A repeat for the same account replaces the registration.
      expectSuccess(await requestOn(server.port, owner, 'POST', '/mobile_push/register', registration({ token_kind: 'apns' })));
      const rows = await testDb()`SELECT token_kind, push_account_id::int AS id, encrypted_push_registration FROM push_devices WHERE user_id = ${owner.userId!}`;
      expect(rows).toEqual([{ token_kind: 'apns', id: 42, encrypted_push_registration: BLOB }]);
    } finally {
      await stopServer(server.proc as ChildProcess);
    }
  });
});

describe('legacy device tokens', () => {
  it('registers and removes an APNs token', async () => {
    const token = 'ab'.repeat(32);
    expectError(await owner.post('/users/me/apns_device_token', { token: '', appid: 'org.zulip.Zulip' }), 400, 'BAD_REQUEST', 'Empty or invalid length token');
    expectError(await owner.post('/users/me/apns_device_token', { token: 'x'.repeat(4097), appid: 'org.zulip.Zulip' }), 400, 'BAD_REQUEST', 'Empty or invalid length token');
    expectError(await owner.post('/users/me/apns_device_token', { token: 'zz-not-hex', appid: 'org.zulip.Zulip' }), 400, 'BAD_REQUEST', 'Invalid APNS token');
    expectError(await owner.post('/users/me/apns_device_token', { token, appid: 'bad app id!' }), 400, 'BAD_REQUEST', 'Invalid app ID');
    expectError(await owner.post('/users/me/apns_device_token', { token }), 400, 'REQUEST_VARIABLE_MISSING');
    expectSuccess(await owner.post('/users/me/apns_device_token', { token, appid: 'org.zulip.Zulip' }));
    expectSuccess(await owner.delete('/users/me/apns_device_token', { token }));
    expectError(await owner.delete('/users/me/apns_device_token', { token }), 400, 'BAD_REQUEST', 'Token does not exist');
  });

  it('registers and removes an FCM registration id, per user', async () => {
    const other = await knownUser(subdomain, 'Ola Other');
    expectSuccess(await owner.post('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' }));
    expectError(await other.delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' }), 400, 'BAD_REQUEST', 'Token does not exist');
    expectSuccess(await owner.delete('/users/me/android_gcm_reg_id', { token: 'fcm-token-1' }));
    expectError(await owner.post('/users/me/android_gcm_reg_id', { token: '' }), 400, 'BAD_REQUEST');
  });
});

/** A request as `client` to a server on another port (same database, same realms). */
function requestOn(serverPort: number, client: Client, method: string, path: string, params: Record<string, unknown>): Promise<Reply> {
  const body = encodeForm(params);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: serverPort,
        method,
        path: `/api/v1${path}`,
        headers: {
          Host: `${client.subdomain}.localhost:${serverPort}`,
          Authorization: 'Basic ' + Buffer.from(`${client.email}:${client.apiKey}`).toString('base64'),
          'Content-Type': 'application/x-www-form-urlencoded',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
