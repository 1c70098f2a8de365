// admin create-users: many members in one command, API keys only, picked up by a running
// server through the realm_changes journal.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, newRealm } from '../helpers/client.js';

const run = promisify(execFile);
const env = () => ({ ...process.env, DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'warn' });

interface BulkOutput {
  realm_id: number;
  subdomain: string;
  users: { user_id: number; email: string; api_key: string }[];
}

async function bulk(args: string[]): Promise<BulkOutput> {
  const { stdout } = await run(process.execPath, ['dist/scripts/admin.js', 'create-users', ...args], { env: env() });
  return JSON.parse(stdout) as BulkOutput;
}

async function bulkFails(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const out = await run(process.execPath, ['dist/scripts/admin.js', 'create-users', ...args], { env: env() });
    throw new Error(`expected failure, got: ${out.stdout}`);
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

let owner: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('fbulk'));
});

describe('admin create-users', () => {
  it('creates members a running server announces, whose API keys work and who cannot log in with a password', async () => {
    const queue = await owner.post('/register', { event_types: ['realm_user'] });
    expect(queue.status).toBe(200);
    const out = await bulk(['--realm', subdomain, '--count', '25', '--email-prefix', 'crowd-', '--email-domain', `${subdomain}.test`, '--full-name-prefix', 'Crowd']);
    expect(out.subdomain).toBe(subdomain);
    expect(out.users).toHaveLength(25);
    expect(out.users[0]).toMatchObject({ email: `crowd-1@${subdomain}.test`, user_id: expect.any(Number) });
    expect(new Set(out.users.map((u) => u.api_key)).size).toBe(25);
    for (const u of out.users) expect(u.api_key).toMatch(/^[A-Za-z0-9]{32}$/);

    // A key works at once (an unknown key makes the server read the journal).
    const last = out.users[24]!;
    const me = await new Client(subdomain, last.email, last.api_key, last.user_id).get('/users/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user_id: last.user_id, full_name: 'Crowd 25', role: 400, is_active: true });

    // The owner's queue hears about every one of them.
    let added = new Set<number>();
    for (let tries = 0; tries < 40 && added.size < 25; tries++) {
      const events = await owner.get('/events', { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: 'true' });
      added = new Set((events.body.events as { type: string; op: string; person: { user_id: number } }[])
        .filter((e) => e.type === 'realm_user' && e.op === 'add').map((e) => e.person.user_id));
      if (added.size < 25) await new Promise((r) => setTimeout(r, 100));
    }
    expect([...added].sort((a, b) => a - b)).toEqual(out.users.map((u) => u.user_id));
    const list = await owner.get('/users');
    const ids = list.body.members.map((m: { user_id: number }) => m.user_id);
    for (const u of out.users) expect(ids).toContain(u.user_id);

    const first = out.users[0]!;
    const login = await owner.anonymous().post('/fetch_api_key', { username: first.email, password: '' });
    expect(login.status).not.toBe(200);
  });

  it('honours --role', async () => {
    const out = await bulk(['--realm', subdomain, '--count', '2', '--email-prefix', 'mods-', '--email-domain', `${subdomain}.test`, '--role', '300']);
    const mod = out.users[1]!;
    const me = await new Client(subdomain, mod.email, mod.api_key, mod.user_id).get('/users/me');
    expect(me.body).toMatchObject({ role: 300, full_name: 'User 2' });
  });

  it('fails with exit code 1 and creates nobody on bad input', async () => {
    const dom = `${subdomain}.test`;
    const cases: [string[], RegExp][] = [
      [['--realm', subdomain, '--count', '0', '--email-prefix', 'z-', '--email-domain', dom], /count/],
      [['--realm', subdomain, '--count', 'many', '--email-prefix', 'z-', '--email-domain', dom], /count/],
      [['--realm', subdomain, '--count', '2', '--email-domain', dom], /--email-prefix/],
      [['--realm', 'no-such-realm-here', '--count', '2', '--email-prefix', 'z-'], /no realm/],
      [['--realm', subdomain, '--count', '2', '--email-prefix', 'z-', '--email-domain', dom, '--role', '500'], /role/i],
      [['--realm', subdomain, '--count', '2', '--email-prefix', 'z z', '--email-domain', dom], /address/i],
      [['--realm', subdomain, '--count', '2', '--email-prefix', 'z-', '--email-domain', dom, '--full-name-prefix', 'Bad*'], /characters/i],
      // crowd-1 exists from the first test; z-… would be new, and must not be created either.
      [['--realm', subdomain, '--count', '3', '--email-prefix', 'CROWD-', '--email-domain', dom], /already in use/],
    ];
    const results = await Promise.all(cases.map(([args]) => bulkFails(args)));
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    const list = await owner.get('/users');
    const emails = list.body.members.map((m: { delivery_email: string | null; email: string }) => m.delivery_email ?? m.email);
    expect(emails.filter((e: string) => e.startsWith('z-'))).toEqual([]);
  });
});
