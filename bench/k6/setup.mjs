#!/usr/bin/env node
// Seeds the realms the k6 scenarios use and writes their credentials to a JSON file
// (read by the scenarios through BENCH_CONFIG) plus a matching .env file.
//
// Realms and owners come from the admin CLI (needs --database-url, run from a checkout with
// `npm run build` done). Members are created in bulk by one `admin create-users` per realm
// (API keys only, no password hashed: thousands of users per second), or with
// --users-via api through POST /users and POST /fetch_api_key (a password hash per user:
// a few users per second). Channels are created through the API as the owner, with
// --concurrency calls in flight. Against a deployment whose database you cannot reach, pass
// --email and --api-key of an administrator instead: every scenario then uses that user's
// realm, and members are created in it through the API.
//
//   node bench/k6/setup.mjs --base-url http://127.0.0.1:9870 --external-host localhost:9870 \
//     --database-url postgres://postgres@127.0.0.1:5432/chat

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { URLSearchParams, fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const HELP = `Usage: node bench/k6/setup.mjs --base-url URL [options]

  --base-url URL           where to connect (required)
  --external-host H        realm S is reached with Host: S.H (default: host of --base-url)
  --database-url URL       create realms with the admin CLI against this database
  --email E --api-key K    or: use this administrator's realm for every scenario
  --scenarios LIST         send,idle,register,mixed (default: all)
  --send-users N           users of realm "k6-send", all subscribed to every channel (50)
  --send-channels N        channels of "k6-send" (4)
  --idle-users N           users of realm "k6-idle" (100)
  --register-users N       users of realm "k6-register" (10000)
  --register-channels N    channels of "k6-register" (1000)
  --register-keys N        register users whose API key is fetched for k6 (100)
  --mixed-realms N         realms "k6-mixed-<i>" (20)
  --mixed-users N          users per mixed realm (50)
  --mixed-channels N       channels per mixed realm (10)
  --mixed-messages N       messages seeded per mixed channel, for fetches and reactions (5)
  --users-via cli|api      members by one bulk admin create-users per realm (cli, the
                           default with --database-url: no passwords, API keys only) or
                           through POST /users + POST /fetch_api_key (api: one password
                           hash per user, ~2-10 users/s; the only way with --email)
  --concurrency N          API calls in flight while seeding (16)
  --out FILE               JSON output (default bench/results/k6-config.json, git-ignored;
                           a .env file with BASE_URL and BENCH_CONFIG goes next to it)
`;

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(HELP);
      process.exit(0);
    }
    if (!a.startsWith('--') || i + 1 >= argv.length) throw new Error(`bad argument "${a}"\n\n${HELP}`);
    out[a.slice(2)] = argv[++i];
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
if (!args['base-url']) throw new Error(`--base-url is required\n\n${HELP}`);
const baseUrl = new URL(args['base-url']);
const externalHost = args['external-host'] ?? baseUrl.host;
const num = (key, fallback) => (args[key] === undefined ? fallback : Number(args[key]));
const scenarios = new Set((args.scenarios ?? 'send,idle,register,mixed').split(','));
const concurrency = num('concurrency', 16);
// bench/results/ is git-ignored: the file holds API keys.
const outFile = path.resolve(args.out ?? path.join(REPO_ROOT, 'bench/results/k6-config.json'));
const existing = args.email && args['api-key'] ? { email: args.email, apiKey: args['api-key'] } : null;
if (!existing && !args['database-url']) throw new Error('pass --database-url (admin CLI) or --email and --api-key (existing realm)');
const usersVia = args['users-via'] ?? (existing ? 'api' : 'cli');
if (usersVia !== 'cli' && usersVia !== 'api') throw new Error('--users-via is cli or api');
if (usersVia === 'cli' && existing) throw new Error('--users-via cli needs --database-url (the admin CLI writes to the database)');
const stamp = Date.now().toString(36);
const password = `k6-${Math.random().toString(36).slice(2)}-${stamp}`;
const started = Date.now();

function log(message) {
  process.stderr.write(`[setup ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
}

/** One API call; resolves with the parsed body, rejects on anything but 2xx. */
function api(host, credentials, method, apiPath, form) {
  const body = form ? new URLSearchParams(Object.entries(form).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString() : undefined;
  const headers = { Host: host };
  if (credentials) headers.Authorization = 'Basic ' + Buffer.from(`${credentials.email}:${credentials.apiKey}`).toString('base64');
  if (body !== undefined) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  const lib = baseUrl.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      { hostname: baseUrl.hostname, port: baseUrl.port || undefined, method, path: `/api/v1${apiPath}`, headers, timeout: 120_000 },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode < 200 || res.statusCode >= 300) reject(new Error(`${method} ${apiPath} → ${res.statusCode}: ${text.slice(0, 300)}`));
          else resolve(text ? JSON.parse(text) : {});
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${apiPath}: timeout`)));
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

async function mapConcurrent(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function admin(cliArgs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/scripts/admin.js'), ...cliArgs], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: args['database-url'], LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').reverse().find((l) => l.trim().startsWith('{'));
      if (code !== 0 || !line) reject(new Error(`admin ${cliArgs[0]} failed (${code}): ${(err || out).trim().slice(0, 300)}`));
      else resolve(JSON.parse(line));
    });
  });
}

const realmHostOf = (subdomain) => (subdomain ? `${subdomain}.${externalHost}` : externalHost);

/** A realm with its owner: new through the CLI, or the given administrator's. */
async function openRealm(subdomain) {
  if (existing) {
    const me = await api(externalHost, existing, 'GET', '/users/me');
    return { subdomain: '', host: externalHost, owner: { id: me.user_id, ...existing }, users: [{ id: me.user_id, ...existing }], channels: [] };
  }
  const email = `owner@${subdomain}.k6.example.com`;
  const out = await admin(['create-realm', '--subdomain', subdomain, '--name', `k6 ${subdomain}`, '--owner-email', email, '--owner-password', password]);
  const owner = { id: out.user_id, email: out.email, apiKey: out.api_key };
  return { subdomain, host: realmHostOf(subdomain), owner, users: [owner], channels: [] };
}

/** Creates `count` members; the first `withKeys` get their API key fetched. */
async function addUsers(realm, label, count, withKeys) {
  if (count <= 0) return [];
  if (usersVia === 'cli') return addUsersInBulk(realm, label, count, withKeys);
  const domain = `${label}.k6.example.com`;
  const prefix = existing ? `k6-${stamp}-` : '';
  const created = await mapConcurrent(Array.from({ length: count }, (_, i) => i), concurrency, async (i) => {
    const email = `${prefix}user${i}@${domain}`;
    const res = await api(realm.host, realm.owner, 'POST', '/users', { email, password, full_name: `k6 ${label} ${i}` });
    const user = { id: res.user_id, email, apiKey: '' };
    if (i < withKeys) user.apiKey = (await api(realm.host, null, 'POST', '/fetch_api_key', { username: email, password })).api_key;
    if ((i + 1) % 1000 === 0) log(`${label}: ${i + 1} of ${count} users`);
    return user;
  });
  realm.users.push(...created);
  realm.userCount = realm.users.length;
  return created;
}

/**
 * The fast path: one `admin create-users` writes every member in one transaction, then
 * waits until the server has read them from its change journal (about once a second).
 */
async function addUsersInBulk(realm, label, count, withKeys) {
  const out = await admin(['create-users', '--realm', realm.subdomain, '--count', String(count), '--email-prefix', 'user', '--email-domain', `${label}.k6.example.com`, '--full-name-prefix', `k6 ${label}`]);
  if (!Array.isArray(out.users) || out.users.length !== count) throw new Error(`admin create-users: expected ${count} users in its output`);
  const created = out.users.map((u, i) => ({ id: u.user_id, email: u.email, apiKey: i < withKeys ? u.api_key : '' }));
  const last = created[created.length - 1];
  for (let tries = 0; ; tries++) {
    const known = await api(realm.host, realm.owner, 'GET', `/users/${last.id}`).then(
      () => true,
      (err) => {
        if (/→ 4\d\d/.test(err.message)) return false;
        throw err;
      },
    );
    if (known) break;
    if (tries >= 300) throw new Error(`the server did not load user ${last.id} within 30 s of admin create-users`);
    await new Promise((r) => setTimeout(r, 100));
  }
  log(`${label}: ${count} users created in bulk`);
  realm.users.push(...created);
  realm.userCount = realm.users.length;
  return created;
}

/** Creates channels, subscribing `principals` (batch channels per request), and records their ids. */
async function addChannels(realm, names, principals, batch = 50) {
  for (let i = 0; i < names.length; i += batch) {
    await api(realm.host, realm.owner, 'POST', '/users/me/subscriptions', {
      subscriptions: names.slice(i, i + batch).map((name) => ({ name })),
      principals,
    });
  }
  const subs = await api(realm.host, realm.owner, 'GET', '/users/me/subscriptions');
  const ids = new Map((subs.subscriptions ?? []).map((s) => [s.name, s.stream_id]));
  realm.channels.push(...names.map((name) => ({ id: ids.get(name), name })));
}

/** What k6 needs: users with keys only (the rest only count). */
function forK6(realm) {
  return {
    subdomain: realm.subdomain,
    host: realm.host,
    userCount: realm.users.length,
    users: realm.users.filter((u) => u.apiKey).map(({ id, email, apiKey }) => ({ id, email, apiKey })),
    channels: realm.channels,
  };
}

async function main() {
  const config = { baseUrl: baseUrl.origin, createdAt: new Date().toISOString(), usersVia, realms: {}, seeding: {} };
  const timed = async (name, fn) => {
    const t0 = Date.now();
    const realm = await fn();
    const seconds = (Date.now() - t0) / 1000;
    config.seeding[name] = { users: realm.userCount ?? realm.users?.length, seconds };
    log(`${name}: seeded in ${seconds.toFixed(1)} s`);
    return realm;
  };

  if (scenarios.has('send')) {
    config.realms.send = forK6(await timed('send', async () => {
      const realm = await openRealm('k6-send');
      await addUsers(realm, 'send', num('send-users', 50) - 1, Infinity);
      const names = Array.from({ length: num('send-channels', 4) }, (_, i) => `k6-send-${i}`);
      await addChannels(realm, names, realm.users.map((u) => u.id));
      return realm;
    }));
  }
  if (scenarios.has('idle')) {
    config.realms.idle = forK6(await timed('idle', async () => {
      const realm = await openRealm('k6-idle');
      await addUsers(realm, 'idle', num('idle-users', 100) - 1, Infinity);
      return realm;
    }));
  }
  if (scenarios.has('register')) {
    config.realms.register = forK6(await timed('register', async () => {
      const realm = await openRealm('k6-register');
      const members = await addUsers(realm, 'register', num('register-users', 10000) - 1, num('register-keys', 100));
      // Groups of ten channels share a slice of the members: ~10 channels per user.
      const total = num('register-channels', 1000);
      const groups = Math.max(1, Math.ceil(total / 10));
      const per = Math.max(1, Math.ceil(members.length / groups));
      for (let g = 0; g < groups; g++) {
        const names = [];
        for (let c = g * 10; c < Math.min(total, (g + 1) * 10); c++) names.push(`k6-channel-${c}`);
        await addChannels(realm, names, members.slice(g * per, (g + 1) * per).map((u) => u.id), 10);
      }
      return realm;
    }));
  }
  if (scenarios.has('mixed')) {
    const count = existing ? 1 : num('mixed-realms', 20);
    config.realms.mixed = [];
    await timed('mixed', async () => {
      let users = 0;
      for (let r = 0; r < count; r++) {
        const realm = await openRealm(`k6-mixed-${r}`);
        await addUsers(realm, `mixed${r}`, num('mixed-users', 50) - 1, Infinity);
        const names = Array.from({ length: num('mixed-channels', 10) }, (_, i) => `k6-mixed-${i}`);
        await addChannels(realm, names, realm.users.map((u) => u.id));
        const messages = num('mixed-messages', 5);
        for (const name of names) {
          for (let m = 0; m < messages; m++) {
            await api(realm.host, realm.owner, 'POST', '/messages', { type: 'channel', to: name, topic: 'topic 0', content: `seed message ${m}` });
          }
        }
        config.realms.mixed.push(forK6(realm));
        users += realm.users.length;
      }
      return { userCount: users };
    });
  }

  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, JSON.stringify(config, null, 2) + '\n');
  const envFile = outFile.replace(/\.json$/, '') + '.env';
  writeFileSync(envFile, `BASE_URL=${baseUrl.origin}\nBENCH_CONFIG=${outFile}\n`);
  log(`wrote ${outFile} and ${envFile}`);
  process.stdout.write(`k6 run -e BENCH_CONFIG=${outFile} bench/k6/send.js\n`);
}

main().catch((err) => {
  process.stderr.write(`setup: ${err.message}\n`);
  process.exit(1);
});
