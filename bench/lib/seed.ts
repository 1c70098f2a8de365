// Seeding realms, users and channels: the realm and its owner through the admin CLI,
// everyone else through the API as that owner, or with one bulk `admin create-users` on
// request (no password hashing: seconds for a 10,000-user realm instead of minutes).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ApiClient, ApiError, mapConcurrent } from './api.js';
import type { Credentials } from './request-spec.js';
import { NotReadyError, REPO_ROOT, realmHost, type Target } from './server.js';

export interface SeededUser extends Credentials {
  userId: number;
  password: string;
}

export interface SeededRealm {
  subdomain: string;
  host: string;
  owner: SeededUser;
  /** Everyone created for the run, owner first. */
  users: SeededUser[];
}

interface AdminOutput {
  user_id: number;
  email: string;
  api_key: string;
}

const ADMIN_CLI = 'dist/scripts/admin.js';

export function benchPassword(): string {
  return `bench-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;
}

interface BulkAdminOutput {
  users: AdminOutput[];
}

export function runAdmin(args: string[], databaseUrl: string): Promise<AdminOutput> {
  return runAdminJson<AdminOutput>(args, databaseUrl, (o) => typeof o.api_key === 'string');
}

function runAdminJson<T>(args: string[], databaseUrl: string, valid: (out: T) => boolean): Promise<T> {
  const script = path.join(REPO_ROOT, ADMIN_CLI);
  if (!existsSync(script)) return Promise.reject(new NotReadyError(`${ADMIN_CLI} does not exist yet`));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').reverse().find((l) => l.trim().startsWith('{'));
      if (code !== 0 || !line) {
        reject(new Error(`admin ${args[0]} failed (exit ${code}): ${(err || out).trim().slice(0, 400)}`));
        return;
      }
      try {
        const parsed = JSON.parse(line) as T;
        if (!valid(parsed)) throw new Error('missing fields in output');
        resolve(parsed);
      } catch (e) {
        reject(new Error(`admin ${args[0]}: unexpected output ${line.slice(0, 200)} (${(e as Error).message})`));
      }
    });
  });
}

function userFrom(out: AdminOutput, password: string): SeededUser {
  return { userId: out.user_id, email: out.email, apiKey: out.api_key, password };
}

export async function createRealm(target: Target, databaseUrl: string, subdomain: string, name: string): Promise<SeededRealm> {
  const password = benchPassword();
  const email = `owner-${subdomain || 'root'}@bench.example.com`;
  const out = await runAdmin(
    ['create-realm', '--subdomain', subdomain, '--name', name, '--owner-email', email, '--owner-password', password],
    databaseUrl,
  );
  const owner = userFrom(out, password);
  return { subdomain, host: realmHost(target, subdomain), owner, users: [owner] };
}

export interface UserSeeding {
  target: Target;
  realm: SeededRealm;
  count: number;
  prefix: string;
  /** How many of the new users need an API key (the first ones). */
  withKeys: number;
  concurrency: number;
  via: 'api' | 'cli';
  databaseUrl?: string;
  onProgress?: (done: number, elapsedSeconds: number) => void;
}

/** Creates `count` members and appends them to realm.users. */
export async function createUsers(s: UserSeeding): Promise<SeededUser[]> {
  const password = benchPassword();
  const indexes = Array.from({ length: s.count }, (_, i) => i);
  const domain = `${s.realm.subdomain || 'root'}.bench.example.com`;
  let done = 0;
  const startedAt = performance.now();
  let lastReport = startedAt;
  const tick = () => {
    done++;
    // Seeding big realms can take minutes (password hashing): say how it goes every 15 s.
    if (s.onProgress && performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      s.onProgress(done, (lastReport - startedAt) / 1000);
    }
  };
  let users: SeededUser[];
  if (s.via === 'cli') {
    if (!s.databaseUrl) throw new Error('seeding users through the CLI needs the database URL');
    const out = await runAdminJson<BulkAdminOutput>(
      ['create-users', '--realm', s.realm.subdomain, '--count', String(s.count), '--email-prefix', s.prefix, '--email-domain', domain, '--full-name-prefix', `Bench ${s.prefix}`],
      s.databaseUrl,
      (o) => Array.isArray(o.users) && o.users.length === s.count,
    );
    users = out.users.map((u) => userFrom(u, ''));
    await serverKnows(s, users[users.length - 1]);
  } else {
    const owner = new ApiClient(s.target.baseUrl, s.realm.host, s.realm.owner);
    const anonymous = new ApiClient(s.target.baseUrl, s.realm.host);
    try {
      users = await mapConcurrent(indexes, s.concurrency, async (i) => {
        const email = `${s.prefix}${i}@${domain}`;
        const created = await owner.post<{ user_id: number }>('/users', { email, password, full_name: `Bench ${s.prefix} ${i}` });
        let apiKey = '';
        if (i < s.withKeys) {
          const fetched = await anonymous.post<{ api_key: string; email?: string }>('/fetch_api_key', { username: email, password });
          apiKey = fetched.api_key;
        }
        tick();
        return { userId: created.user_id, email, apiKey, password };
      });
    } finally {
      owner.close();
      anonymous.close();
    }
  }
  s.realm.users.push(...users);
  return users;
}

/** The server reads the users from its change journal about once a second: wait for them. */
async function serverKnows(s: UserSeeding, last: SeededUser | undefined): Promise<void> {
  if (!last) return;
  const owner = new ApiClient(s.target.baseUrl, s.realm.host, s.realm.owner);
  try {
    for (let tries = 0; ; tries++) {
      // A user not loaded yet is "No such user" (an error status).
      const known = await owner.call('GET', `/users/${last.userId}`).then(
        () => true,
        (err: unknown) => {
          if (err instanceof ApiError && err.status < 500) return false;
          throw err;
        },
      );
      if (known) return;
      if (tries >= 300) throw new Error(`the server did not load user ${last.userId} created by admin create-users`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    owner.close();
  }
}

/**
 * Creates channels and subscribes `principals` to all of them, `batch` channels per
 * request (the owner creating them is subscribed too).
 */
export async function createChannels(target: Target, realm: SeededRealm, names: string[], principals: number[], batch = 50): Promise<void> {
  const owner = new ApiClient(target.baseUrl, realm.host, realm.owner);
  try {
    for (let i = 0; i < names.length; i += batch) {
      await owner.post('/users/me/subscriptions', {
        subscriptions: names.slice(i, i + batch).map((name) => ({ name })),
        principals,
      });
    }
  } finally {
    owner.close();
  }
}

/** Channel ids by name, as the owner sees them. */
export async function channelIds(target: Target, realm: SeededRealm): Promise<Map<string, number>> {
  const owner = new ApiClient(target.baseUrl, realm.host, realm.owner);
  try {
    const res = await owner.get<{ subscriptions: { name: string; stream_id: number }[] }>('/users/me/subscriptions');
    return new Map(res.subscriptions.map((s) => [s.name, s.stream_id]));
  } finally {
    owner.close();
  }
}
