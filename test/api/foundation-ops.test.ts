// GET /server_settings (no authentication), /health and Prometheus /metrics.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, newRealm, port, rawRequest } from '../helpers/client.js';

let owner: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('fops'));
});

async function text(path: string): Promise<{ status: number; type: string; body: string }> {
  const r = await fetch(`http://127.0.0.1:${port()}${path}`);
  return { status: r.status, type: r.headers.get('content-type') ?? '', body: await r.text() };
}

/** The value of one Prometheus sample whose labels include all of `labels`. */
function sample(metrics: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const have = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[2]);
  }
  return undefined;
}

describe('GET /server_settings', () => {
  it('describes the server and the realm of the host, without authentication', async () => {
    const r = await owner.anonymous().get('/server_settings');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      result: 'success',
      msg: '',
      zulip_feature_level: 406,
      realm_name: `Realm ${subdomain}`,
      realm_url: `http://${subdomain}.localhost:${port()}`,
      realm_web_public_access_enabled: false,
      email_auth_enabled: true,
      require_email_format_usernames: true,
      push_notifications_enabled: false,
    });
    expect(r.body.zulip_version).toEqual(expect.any(String));
    expect(r.body.zulip_version.length).toBeGreaterThan(0);
    expect(r.body.authentication_methods).toMatchObject({ password: true, ldap: false, dev: false });
    expect(r.body.external_authentication_methods).toEqual([]);
  });

  it('ignores credentials, even wrong ones', async () => {
    const wrong = new Client(subdomain, owner.email, 'y'.repeat(32));
    const r = await wrong.get('/server_settings');
    expect(r.status).toBe(200);
    expect(r.body.realm_name).toBe(`Realm ${subdomain}`);
  });
});

describe('operations endpoints', () => {
  it('/health answers outside /api/v1', async () => {
    const r = await text('/health');
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/json/);
    expect(JSON.parse(r.body)).toMatchObject({ result: 'success', status: 'ok' });
    // Not an API route: the same path under /api/v1 is unknown.
    expect((await rawRequest({ method: 'GET', path: '/api/v1/health' })).status).toBe(404);
  });

  it('/metrics counts requests and latency per route, and active realm actors', async () => {
    const before = sample((await text('/metrics')).body, 'chat_http_requests_total', { route: '/users/me', method: 'GET', status: '200' }) ?? 0;
    for (let i = 0; i < 3; i++) expect((await owner.get('/users/me')).status).toBe(200);
    expect((await owner.anonymous().get('/users/me')).status).toBe(401);
    const m = await text('/metrics');
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain/);
    const after = sample(m.body, 'chat_http_requests_total', { route: '/users/me', method: 'GET', status: '200' });
    expect(after).toBeGreaterThanOrEqual(before + 3);
    expect(sample(m.body, 'chat_http_requests_total', { route: '/users/me', method: 'GET', status: '401' })).toBeGreaterThanOrEqual(1);
    expect(sample(m.body, 'chat_http_request_duration_seconds_count', { route: '/users/me', method: 'GET' })).toBeGreaterThanOrEqual(4);
    expect(sample(m.body, 'chat_http_request_duration_seconds_bucket', { route: '/users/me', method: 'GET', le: '+Inf' })).toBeGreaterThanOrEqual(4);
    expect(sample(m.body, 'chat_realm_actors_active')).toBeGreaterThanOrEqual(1);
  });

  it('/metrics labels unknown paths as one route, not one series per path', async () => {
    await rawRequest({ method: 'GET', path: `/api/v1/random-${Date.now()}` });
    const m = (await text('/metrics')).body;
    expect(m).not.toMatch(/route="\/random-/);
    expect(m).not.toMatch(/route="\/api\/v1\/random-/);
    expect(sample(m, 'chat_http_requests_total', { status: '404' })).toBeGreaterThanOrEqual(1);
  });
});
