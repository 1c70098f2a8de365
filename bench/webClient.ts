// The web client in a large organization: 10,000 users and 1,000 channels. Starts a server on
// a fresh database, fills it (the admin CLI's bulk user creation, channels through the API),
// then drives Debian's Chromium and measures what a person waits for: the first render of
// the feed after opening the page (register included) and switching to another channel.
//
//   npm run bench:web [-- --users 10000 --channels 1000 --rounds 5]
//
// Needs PostgreSQL at TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) and
// /usr/bin/chromium. Prints a table; the figures go to web/README.md by hand.
import { spawn, execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { chromium } from 'playwright-core';
import { freePort } from '../scripts/freePort.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: { users: { type: 'string', default: '10000' }, channels: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '5' } },
});
const USERS = Number(values.users);
const CHANNELS = Number(values.channels);
const ROUNDS = Number(values.rounds);
const ADMIN_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PASSWORD = 'bench-password-1';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const dbName = `chat_webbench_${process.pid}`;
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(ADMIN_URL);
  dbUrl.pathname = `/${dbName}`;
  const port = await freePort();
  const env = { ...process.env, DATABASE_URL: dbUrl.toString(), DEMO_REALM: 'false', PORT: String(port), EXTERNAL_HOST: `localhost:${port}`, LOG_LEVEL: 'warn', RATE_LIMITS: process.env.RATE_LIMITS ?? 'off' };
  const server = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)) break;
      if (i > 300) throw new Error('server did not start');
      await sleep(100);
    }
    const cli = (args: string[]) => run(process.execPath, ['dist/scripts/admin.js', ...args], { env, maxBuffer: 64 * 1024 * 1024 });
    const realm = JSON.parse((await cli(['create-realm', '--subdomain', 'big', '--name', 'Big', '--owner-email', 'owner@big.test', '--owner-password', PASSWORD])).stdout);
    let t = Date.now();
    await cli(['create-users', '--realm', 'big', '--count', String(USERS - 1), '--email-prefix', 'member', '--email-domain', 'big.test']);
    console.log(`created ${USERS - 1} users in ${Date.now() - t} ms`);
    const host = `big.localhost:${port}`;
    const auth = 'Basic ' + Buffer.from(`${realm.email}:${realm.api_key}`).toString('base64');
    // node:http, because fetch does not send a Host header of our choosing.
    const apiPost = (path: string, params: Record<string, unknown>) =>
      new Promise<void>((resolve, reject) => {
        const body = new URLSearchParams();
        for (const [k, v] of Object.entries(params)) body.set(k, typeof v === 'string' ? v : JSON.stringify(v));
        const req = http.request(
          { host: '127.0.0.1', port, method: 'POST', path: `/api/v1${path}`, headers: { Host: host, Authorization: auth, 'Content-Type': 'application/x-www-form-urlencoded' } },
          (res) => {
            let text = '';
            res.on('data', (c: Buffer) => (text += c.toString()));
            res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${path}: ${res.statusCode} ${text}`))));
          },
        );
        req.on('error', reject);
        req.end(body.toString());
      });
    t = Date.now();
    for (let i = 0; i < CHANNELS; i += 100) {
      const names = Array.from({ length: Math.min(100, CHANNELS - i) }, (_, j) => ({ name: `channel-${String(i + j).padStart(4, '0')}` }));
      await apiPost('/users/me/subscriptions', { subscriptions: names, send_new_subscription_messages: false });
    }
    console.log(`created ${CHANNELS} channels in ${Date.now() - t} ms`);
    const a = 'channel-0001';
    const b = `channel-${String(Math.floor(CHANNELS / 2)).padStart(4, '0')}`;
    for (let i = 0; i < 60; i++) await apiPost('/messages', { type: 'stream', to: i % 2 ? a : b, topic: `topic ${i % 5}`, content: `Message **${i}** in ${i % 2 ? a : b}` });

    const origin = `http://${host}`;
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    let registerBytes = 0;
    page.on('response', (r) => {
      if (r.url().endsWith('/json/register')) void r.body().then((b) => (registerBytes = b.length), () => undefined);
    });
    await page.goto(origin + '/');
    await page.getByLabel('Email').fill(realm.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('navigation', { name: 'Channels and conversations' }).waitFor({ timeout: 60_000 });

    // Times are taken in the page, on its own clock, when the DOM shows the messages and the
    // next frame has been drawn: the test driver's polling is not counted.
    await page.addInitScript(`
      new MutationObserver((_, mo) => {
        if (document.querySelector('ul.messages li')) {
          requestAnimationFrame(() => (window.__firstRender = performance.now()));
          mo.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    `);
    const firstRender: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await page.goto(`${origin}/#narrow/channel/${a}`, { waitUntil: 'commit' });
      await page.reload({ waitUntil: 'commit' });
      // A function, not a string: the page's policy forbids eval.
      await page.waitForFunction(() => (globalThis as { __firstRender?: number }).__firstRender !== undefined, undefined, { timeout: 60_000 });
      firstRender.push((await page.evaluate('window.__firstRender')) as number);
    }
    const switchNarrow: number[] = [];
    const fetches: number[] = [];
    page.on('requestfinished', (r) => {
      if (r.url().includes('/json/messages?')) fetches.push(r.timing().responseEnd);
    });
    for (let i = 0; i < ROUNDS * 2; i++) {
      const target = i % 2 ? a : b;
      const ms = (await page.evaluate(`new Promise((resolve) => {
        const link = [...document.querySelectorAll('nav a')].find((el) => el.textContent === ${JSON.stringify(target)});
        const shown = () => {
          const items = [...document.querySelectorAll('ul.messages li')];
          return items.length > 0 && items.every((li) => li.textContent.includes(${JSON.stringify(`in ${target}`)}));
        };
        const start = performance.now();
        const mo = new MutationObserver(() => {
          if (!shown()) return;
          mo.disconnect();
          requestAnimationFrame(() => resolve(performance.now() - start));
        });
        mo.observe(document.body, { childList: true, subtree: true, characterData: true });
        link.click();
      })`)) as number;
      switchNarrow.push(ms);
    }
    const heap = (await page.evaluate('performance.memory ? performance.memory.usedJSHeapSize : 0')) as number;
    console.log('');
    console.log(`| users | channels | first render (median of ${ROUNDS}) | switch channel (median of ${ROUNDS * 2}) | of which GET /messages | register body | JS heap |`);
    console.log('|---|---|---|---|---|---|---|');
    console.log(
      `| ${USERS} | ${CHANNELS} | ${Math.round(median(firstRender))} ms | ${Math.round(median(switchNarrow))} ms | ${Math.round(median(fetches))} ms | ${(registerBytes / 1024 / 1024).toFixed(1)} MiB | ${(heap / 1024 / 1024).toFixed(0)} MiB |`,
    );
    console.log(`first render: ${firstRender.map(Math.round).join(', ')} ms; switch: ${switchNarrow.map(Math.round).join(', ')} ms`);
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
