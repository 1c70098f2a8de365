// The admin CLI against DATABASE_URL: one JSON object per command, clear failures, and users
// it creates reaching a running server through the realm_changes journal.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { admin, Client, newRealm } from '../helpers/client.js';

const run = promisify(execFile);

/** Runs the CLI expecting it to fail; returns its exit code, stdout and stderr. */
async function adminFails(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const out = await run(process.execPath, ['dist/scripts/admin.js', ...args], {
      env: { ...process.env, DATABASE_URL: inject('databaseUrl'), LOG_LEVEL: 'warn' },
    });
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
  ({ owner, subdomain } = await newRealm('fadmin'));
});

describe('admin create-realm and create-user', () => {
  it('print one JSON object with user_id, email and api_key that work at once', async () => {
    const sub = `fadminnew${Date.now().toString(36)}`;
    const realm = await admin([
      'create-realm', '--subdomain', sub.toUpperCase(), '--name', 'Fresh Org',
      '--owner-email', `boss@${sub}.test`, '--owner-password', 'boss-password-1', '--owner-name', 'Bea Boss',
    ]);
    expect(realm).toMatchObject({ subdomain: sub, email: `boss@${sub}.test`, role: 100, user_id: expect.any(Number), realm_id: expect.any(Number) });
    expect(realm.api_key).toMatch(/^[A-Za-z0-9]{32}$/);
    const boss = new Client(sub, realm.email, realm.api_key, realm.user_id);
    const me = await boss.get('/users/me');
    expect(me.body).toMatchObject({ user_id: realm.user_id, full_name: 'Bea Boss', role: 100, is_owner: true });
    const settings = await boss.get('/server_settings');
    expect(settings.body.realm_name).toBe('Fresh Org');

    const mod = await admin(['create-user', '--realm', sub, '--email', `mod@${sub}.test`, '--password', 'mod-password-1', '--full-name', 'Max Mod', '--role', '300']);
    expect(mod).toMatchObject({ email: `mod@${sub}.test`, role: 300, user_id: expect.any(Number) });
    const modMe = await boss.as(mod).get('/users/me');
    expect(modMe.body).toMatchObject({ user_id: mod.user_id, role: 300 });
    const login = await boss.anonymous().post('/fetch_api_key', { username: mod.email, password: 'mod-password-1' });
    expect(login.body.api_key).toBe(mod.api_key);
  });

  it('announces users created while the realm is active to connected clients', async () => {
    const queue = await owner.post('/register', { event_types: ['realm_user'] });
    expect(queue.status).toBe(200);
    const created = await admin(['create-user', '--realm', subdomain, '--email', `late@${subdomain}.test`, '--password', 'late-password-1', '--full-name', 'Lee Late']);
    // The server polls the journal about once a second.
    let person: Record<string, unknown> | undefined;
    for (let tries = 0; tries < 40 && !person; tries++) {
      const events = await owner.get('/events', { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: 'true' });
      person = (events.body.events as { type: string; op: string; person: Record<string, unknown> }[])
        .find((e) => e.type === 'realm_user' && e.op === 'add')?.person;
      if (!person) await new Promise((r) => setTimeout(r, 100));
    }
    expect(person).toMatchObject({ user_id: created.user_id, full_name: 'Lee Late', role: 400 });
    const list = await owner.get('/users');
    expect(list.body.members.map((m: { user_id: number }) => m.user_id)).toContain(created.user_id);
  });

  it('fail with a message and exit code 1, printing nothing on stdout', async () => {
    const shortSub = `fadminshort${Date.now().toString(36)}`;
    const cases: [string[], RegExp][] = [
      [['create-user', '--realm', subdomain, '--email', owner.email!.toUpperCase(), '--password', 'pw-123456', '--full-name', 'Dup'], /already in use/],
      [['create-user', '--realm', 'no-such-realm-here', '--email', 'x@y.test', '--password', 'pw-123456', '--full-name', 'X'], /no realm/],
      [['create-user', '--realm', subdomain, '--email', `r@${subdomain}.test`, '--password', 'pw-123456', '--full-name', 'R', '--role', '500'], /role/i],
      [['create-user', '--realm', subdomain, '--email', `r@${subdomain}.test`, '--password', 'pw-123456', '--full-name', 'R', '--role', 'boss'], /role/i],
      [['create-user', '--realm', subdomain, '--password', 'pw-123456', '--full-name', 'No Email'], /--email/],
      [['create-user', '--realm', subdomain, '--email', 'not-an-email', '--password', 'pw-123456', '--full-name', 'Bad'], /address/i],
      [['create-realm', '--subdomain', subdomain, '--name', 'Again', '--owner-email', 'a@b.test', '--owner-password', 'pw-123456'], /already in use/],
      [['create-realm', '--subdomain', 'Bad_Sub!', '--name', 'Bad', '--owner-email', 'a@b.test', '--owner-password', 'pw-123456'], /subdomain/i],
      [['create-realm', '--subdomain', 'www', '--name', 'Www', '--owner-email', 'a@b.test', '--owner-password', 'pw-123456'], /subdomain/i],
      [['create-realm', '--subdomain', shortSub, '--name', 'Short', '--owner-email', 'a@b.test', '--owner-password', 'x'], /password/i],
      [['drop-everything'], /usage/],
      [['create-user', '--realm', subdomain, '--bogus', 'x'], /bogus/],
    ];
    const results = await Promise.all(cases.map(([args]) => adminFails(args)));
    for (const [i, [args, message]] of cases.entries()) {
      const r = results[i]!;
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    // A failed create-realm leaves nothing behind: the subdomain is still free.
    const again = await admin([
      'create-realm', '--subdomain', shortSub, '--name', 'Short', '--owner-email', 'a@b.test', '--owner-password', 'long-enough-1',
    ]);
    expect(again.user_id).toEqual(expect.any(Number));
  });
});
