// One-command start: no DATABASE_URL, an embedded Postgres under a temporary DATA_DIR, a demo
// organization and its credentials printed once; the admin CLI against the running server;
// a restart keeps the data; SIGTERM exits cleanly. Spawns servers of its own.
import { execFile, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, stopServer } from '../helpers/globalSetup.js';

const run = promisify(execFile);

interface Reply {
  status: number;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

let dataDir: string;
let server: { proc: ChildProcess; port: number; output: () => string } | null = null;
const servers: ChildProcess[] = [];

function embeddedEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ...extra };
  delete env.DATABASE_URL;
  delete env.DEMO_REALM;
  return env;
}

async function start(): Promise<{ proc: ChildProcess; port: number; output: () => string }> {
  // The helper overlays its own variables on process.env: take DATABASE_URL out of it first.
  const saved = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  try {
    // info-level logs carry the request lines; a long heartbeat keeps a poll parked until shutdown.
    // A first start runs initdb inside PGlite: seconds on a quiet machine, more on a busy one.
    const s = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'info', HEARTBEAT_SECONDS: '60' }, 100_000);
    servers.push(s.proc);
    return s;
  } finally {
    if (saved !== undefined) process.env.DATABASE_URL = saved;
  }
}

function request(opts: { method?: string; path: string; host?: string; auth?: [string, string]; form?: Record<string, string> }): Promise<Reply> {
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const headers: Record<string, string> = { Host: opts.host ?? `localhost:${server!.port}` };
  if (opts.auth) headers.Authorization = 'Basic ' + Buffer.from(opts.auth.join(':')).toString('base64');
  if (body) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: server!.port, method: opts.method ?? 'GET', path: `/api/v1${opts.path}`, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function adminCli(args: string[]): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const { stdout } = await run(process.execPath, ['dist/scripts/admin.js', ...args], { env: embeddedEnv({ LOG_LEVEL: 'warn' }) });
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1); // exactly one JSON object
  return JSON.parse(lines[0]!);
}

function banner(output: string): { email: string; password: string; apiKey: string; curl: string } {
  const email = /email:\s+(\S+)/.exec(output)?.[1];
  const password = /password:\s+(\S+)/.exec(output)?.[1];
  const apiKey = /API key:\s+(\S+)/.exec(output)?.[1];
  const curl = /^\s*(curl .*)$/m.exec(output)?.[1];
  expect(email && password && apiKey && curl, output).toBeTruthy();
  return { email: email!, password: password!, apiKey: apiKey!, curl: curl! };
}

function requestLogs(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'request');
}

async function sigterm(proc: ChildProcess): Promise<{ code: number | null; ms: number }> {
  const t0 = Date.now();
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.kill('SIGTERM');
  const code = await exited;
  return { code, ms: Date.now() - t0 };
}

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chat-embedded-'));
});

afterAll(async () => {
  for (const proc of servers) await stopServer(proc);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// Generous: PGlite's first start and the CLI's own database opening are slow on a busy machine.
describe('one-command start on the embedded database', { timeout: 120_000 }, () => {
  let demo: ReturnType<typeof banner>;
  let cliUser: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  let cliRealm: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  let offlineUser: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('creates a demo organization on first start and prints working credentials once', async () => {
    server = await start();
    const out = server.output();
    expect(out).toMatch(/demo organization was created/);
    demo = banner(out);
    expect(demo.apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(fs.existsSync(path.join(dataDir, 'pg'))).toBe(true);

    const me = await request({ path: '/users/me', auth: [demo.email, demo.apiKey] });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ role: 100, is_owner: true, delivery_email: demo.email });

    const fetched = await request({ method: 'POST', path: '/fetch_api_key', form: { username: demo.email, password: demo.password } });
    expect(fetched.body).toMatchObject({ result: 'success', api_key: demo.apiKey, email: demo.email });

    // The printed curl line works as printed.
    const { stdout } = await run('sh', ['-c', demo.curl]);
    expect(JSON.parse(stdout)).toMatchObject({ result: 'success', user_id: me.body.user_id });

    // The owner holds can_create_users.
    const created = await request({
      method: 'POST', path: '/users', auth: [demo.email, demo.apiKey],
      form: { email: 'api-made@example.com', password: 'api-made-password', full_name: 'Api Made' },
    });
    expect(created.status).toBe(200);
  });

  it('logs one JSON line per request with request id, realm, user, route, status and time', async () => {
    const settled = async () => {
      // Log lines reach the pipe asynchronously: wait until the output stops growing.
      for (let last = -1; last !== server!.output().length; ) {
        last = server!.output().length;
        await new Promise((r) => setTimeout(r, 150));
      }
    };
    await settled();
    const before = requestLogs(server!.output()).length;
    const me = await request({ path: '/users/me', auth: [demo.email, demo.apiKey] });
    await request({ path: '/no/such/route' });
    await settled();
    const lines = requestLogs(server!.output()).slice(before);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ realm: '', user: me.body.user_id, method: 'GET', route: '/users/me', status: 200 });
    expect(lines[0]!.reqId).toEqual(expect.any(String));
    expect(lines[0]!.ms).toEqual(expect.any(Number));
    expect(lines[1]).toMatchObject({ route: 'unmatched', status: 404 });
    expect(lines[1]!.reqId).not.toBe(lines[0]!.reqId);
  });

  it('refuses a second server on the same DATA_DIR', async () => {
    await expect(start()).rejects.toThrow(/in use by another server process/);
    // The first one is unharmed.
    expect((await request({ path: '/users/me', auth: [demo.email, demo.apiKey] })).status).toBe(200);
  });

  it('runs the admin CLI against the running server, whose new users work at once', async () => {
    cliUser = await adminCli(['create-user', '--realm', '', '--email', 'cli-made@example.com', '--password', 'cli-password-1', '--full-name', 'Cli Made']);
    expect(cliUser).toMatchObject({ user_id: expect.any(Number), email: 'cli-made@example.com', api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
    const me = await request({ path: '/users/me', auth: [cliUser.email, cliUser.api_key] });
    expect(me.status).toBe(200);
    expect(me.body.user_id).toBe(cliUser.user_id);

    const second = await adminCli(['create-user', '--realm', '', '--email', 'cli-login@example.com', '--password', 'cli-password-2', '--full-name', 'Cli Login']);
    const login = await request({ method: 'POST', path: '/fetch_api_key', form: { username: second.email, password: 'cli-password-2' } });
    expect(login.body).toMatchObject({ result: 'success', api_key: second.api_key });

    cliRealm = await adminCli([
      'create-realm', '--subdomain', 'second', '--name', 'Second Org',
      '--owner-email', 'boss@second.test', '--owner-password', 'boss-password-1',
    ]);
    expect(cliRealm).toMatchObject({ user_id: expect.any(Number), email: 'boss@second.test', api_key: expect.any(String) });
    const other = await request({ path: '/users/me', host: `second.localhost:${server!.port}`, auth: [cliRealm.email, cliRealm.api_key] });
    expect(other.body).toMatchObject({ result: 'success', role: 100 });
  });

  it('serves concurrent writes from several realms and the CLI without mixing them up', async () => {
    const root = { host: `localhost:${server!.port}`, auth: [demo.email, demo.apiKey] as [string, string] };
    const second = { host: `second.localhost:${server!.port}`, auth: [cliRealm.email, cliRealm.api_key] as [string, string] };
    const writes = Array.from({ length: 16 }, (_, i) => {
      const realm = i % 2 ? second : root;
      return request({
        method: 'POST', path: '/users', ...realm,
        form: { email: `burst${i}@example.com`, password: 'burst-password', full_name: `Burst ${i}` },
      });
    });
    const reads = Array.from({ length: 16 }, (_, i) => request({ path: '/users', ...(i % 2 ? second : root) }));
    // Each unknown subdomain is a database lookup: many at once keep every connection busy.
    const lookups = Array.from({ length: 150 }, (_, i) => request({ path: '/server_settings', host: `nobody${i}.localhost:${server!.port}` }));
    const cli = adminCli(['create-user', '--realm', 'second', '--email', 'burst-cli@example.com', '--password', 'burst-password', '--full-name', 'Burst Cli']);
    const [written, read, missing] = await Promise.all([Promise.all(writes), Promise.all(reads), Promise.all(lookups), cli]);
    for (const r of [...written, ...read]) expect(r.body.result, JSON.stringify(r.body)).toBe('success');
    for (const r of missing) expect(r.body.code, JSON.stringify(r.body)).toBe('NONEXISTENT_SUBDOMAIN');
    for (const [realm, parity] of [[root, 0], [second, 1]] as const) {
      const list = await request({ path: '/users', ...realm, method: 'GET' });
      const names = new Set((list.body.members as { full_name: string }[]).map((m) => m.full_name));
      for (let i = parity; i < 16; i += 2) expect(names.has(`Burst ${i}`), `Burst ${i}`).toBe(true);
      for (let i = 1 - parity; i < 16; i += 2) expect(names.has(`Burst ${i}`), `Burst ${i}`).toBe(false);
    }
  });

  it('finds a message by full-text search as soon as it is sent', async () => {
    const root = { host: `localhost:${server!.port}`, auth: [demo.email, demo.apiKey] as [string, string] };
    const sent = await request({ method: 'POST', path: '/messages', ...root, form: { type: 'direct', to: JSON.stringify([demo.email]), content: 'the quartermaster counts marmalade jars' } });
    expect(sent.body.result, JSON.stringify(sent.body)).toBe('success');
    const narrow = JSON.stringify([{ operator: 'search', operand: 'marmalade' }]);
    const found = await request({ path: `/messages?anchor=newest&num_before=10&num_after=0&narrow=${encodeURIComponent(narrow)}`, ...root, method: 'GET' });
    expect((found.body.messages as { id: number }[]).map((m) => m.id)).toEqual([sent.body.id]);
  });

  it('keeps concurrent clients of the embedded Postgres apart (the CLI connects the same way)', async () => {
    // The endpoint the server publishes for tools; several connections at once, with
    // transactions, as the server's own pool and the CLI use it.
    const { port } = JSON.parse(fs.readFileSync(path.join(dataDir, 'embedded-postgres.json'), 'utf8')) as { port: number };
    const sql = postgres(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 8, onnotice: () => undefined });
    try {
      await sql`CREATE TABLE IF NOT EXISTS protocol_check (id serial PRIMARY KEY, v integer NOT NULL)`;
      const problems: string[] = [];
      await Promise.all(
        Array.from({ length: 1000 }, async (_, i) => {
          try {
            if (i % 3 === 0) {
              await sql.begin(async (tx) => {
                const [row] = await tx<{ id: number; v: number }[]>`INSERT INTO protocol_check (v) VALUES (${i}) RETURNING id, v`;
                const [again] = await tx<{ v: number }[]>`SELECT v FROM protocol_check WHERE id = ${row!.id}`;
                if (row!.v !== i || again!.v !== i) problems.push(`transaction ${i} saw ${row!.v}/${again!.v}`);
              });
            } else {
              const [row] = await sql<{ v: number; t: string }[]>`SELECT ${i}::int AS v, ${`t${i}`}::text AS t`;
              if (row!.v !== i || row!.t !== `t${i}`) problems.push(`query ${i} saw ${row!.v}`);
            }
          } catch (err) {
            problems.push(`${i}: ${(err as Error).message}`);
          }
        }),
      );
      expect(problems.slice(0, 5)).toEqual([]);
    } finally {
      await sql.end({ timeout: 5 });
    }
    // The server is unharmed.
    expect((await request({ path: '/users/me', auth: [demo.email, demo.apiKey] })).status).toBe(200);
  });

  it('shuts down on SIGTERM with exit code 0, ending parked polls and forgetting dropped uploads', async () => {
    const queue = await request({ method: 'POST', path: '/register', auth: [demo.email, demo.apiKey], form: { event_types: '["realm_user"]' } });
    expect(queue.status).toBe(200);
    const poll = request({ path: `/events?queue_id=${queue.body.queue_id}&last_event_id=-1`, auth: [demo.email, demo.apiKey] });
    // A client that starts an upload and goes away: the server must not wait for it.
    await new Promise<void>((resolve) => {
      const socket = net.connect(server!.port, '127.0.0.1', () => {
        socket.write(`POST /api/v1/users HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail=half`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    await new Promise((r) => setTimeout(r, 100));
    const { code, ms } = await sigterm(server!.proc);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(5000);
    const ended = await poll;
    expect(ended.body.result).toBe('success');
    expect(fs.existsSync(path.join(dataDir, 'embedded-postgres.json'))).toBe(false);
  });

  it('lets the admin CLI open the database itself while no server runs', async () => {
    offlineUser = await adminCli(['create-user', '--realm', 'second', '--email', 'offline@second.test', '--password', 'offline-password', '--full-name', 'Off Line']);
    expect(offlineUser.user_id).toEqual(expect.any(Number));
  });

  it('keeps every change across a restart, and prints no banner the second time', async () => {
    server = await start();
    expect(server.output()).not.toMatch(/demo organization/);
    expect(server.output()).not.toContain(demo.apiKey);
    const me = await request({ path: '/users/me', auth: [demo.email, demo.apiKey] });
    expect(me.status).toBe(200);
    const cli = await request({ path: '/users/me', auth: [cliUser.email, cliUser.api_key] });
    expect(cli.body.user_id).toBe(cliUser.user_id);
    const secondHost = `second.localhost:${server.port}`;
    const offline = await request({ path: '/users/me', host: secondHost, auth: [offlineUser.email, offlineUser.api_key] });
    expect(offline.body.user_id).toBe(offlineUser.user_id);
    const users = await request({ path: '/users', auth: [demo.email, demo.apiKey] });
    const emails = (users.body.members as { delivery_email: string }[]).map((m) => m.delivery_email);
    expect(emails).toEqual(expect.arrayContaining([demo.email, 'api-made@example.com', 'cli-made@example.com', 'burst0@example.com']));
    const login = await request({ method: 'POST', path: '/fetch_api_key', form: { username: 'api-made@example.com', password: 'api-made-password' } });
    expect(login.body.result).toBe('success');
    const { code } = await sigterm(server.proc);
    expect(code).toBe(0);
  });
});
