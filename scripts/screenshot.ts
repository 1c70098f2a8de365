// Refreshes docs/screenshot.png, the picture of the web client in README.md: starts the
// server on a fresh embedded database (its demo organization), adds a few people, channels
// and messages through the API, logs in with Chromium and photographs the main view.
//
//   npm run screenshot
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { freePort } from './freePort.js';

const OUT = path.resolve('docs/screenshot.png');

type Json = Record<string, unknown>;

function request(port: number, method: string, apiPath: string, params: Json, auth?: [string, string]): Promise<Json> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) body.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
  if (auth) headers.Authorization = 'Basic ' + Buffer.from(`${auth[0]}:${auth[1]}`).toString('base64');
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: `/api/v1${apiPath}`, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        const parsed = JSON.parse(text) as Json;
        if (res.statusCode === 200) resolve(parsed);
        else reject(new Error(`${method} ${apiPath}: ${text}`));
      });
    });
    req.on('error', reject);
    req.end(body.toString());
  });
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chat-screenshot-'));
  const port = await freePort();
  let out = '';
  const server = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: String(port), EXTERNAL_HOST: `localhost:${port}`, LOG_LEVEL: 'warn', DEMO_REALM: 'true' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    for (let i = 0; !/Server listening/.test(out); i++) {
      if (i > 600) throw new Error(`server did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const email = /email:\s+(\S+)/.exec(out)![1]!;
    const password = /password:\s+(\S+)/.exec(out)![1]!;
    const key = /API key:\s+(\S+)/.exec(out)![1]!;
    const owner: [string, string] = [email, key];
    const people: Record<string, [string, string]> = {};
    for (const [name, mail] of [
      ['Alice Andersen', 'alice@example.com'],
      ['Bashir Okafor', 'bashir@example.com'],
      ['Chen Wei', 'chen@example.com'],
      ['Dana Ruiz', 'dana@example.com'],
    ] as const) {
      await request(port, 'POST', '/users', { email: mail, password: 'demo-password-1', full_name: name }, owner);
      const r = await request(port, 'POST', '/fetch_api_key', { username: mail, password: 'demo-password-1' });
      people[name] = [mail, r.api_key as string];
    }
    const all = Object.values(people).map(([mail]) => mail);
    await request(port, 'POST', '/users/me/subscriptions', { subscriptions: [{ name: 'design' }, { name: 'engineering' }, { name: 'random' }], principals: [email, ...all] }, owner);
    const say = (who: [string, string], to: string, topic: string, content: string) => request(port, 'POST', '/messages', { type: 'stream', to, topic, content }, who);
    await say(people['Alice Andersen']!, 'engineering', 'release 1.4', 'The release branch is cut. Remaining blockers are tracked in **#engineering > release 1.4** :rocket:');
    await say(people['Chen Wei']!, 'engineering', 'release 1.4', 'Migrations ran cleanly on staging:\n```sql\nSELECT count(*) FROM sessions;\n```');
    await say(people['Bashir Okafor']!, 'design', 'new logo', 'Here are the two candidates for the new logo. I lean towards the *rounded* one.');
    const m = await say(people['Dana Ruiz']!, 'design', 'new logo', 'Rounded, definitely. @**Demo Owner** what do you think?');
    await say(people['Alice Andersen']!, 'design', 'new logo', 'Agreed :+1: it reads better at small sizes.');
    await say(people['Chen Wei']!, 'design', 'color palette', 'Should the dark theme keep the same accent color?');
    await request(port, 'POST', `/messages/${m.id as number}/reactions`, { emoji_name: 'tada' }, people['Alice Andersen']!);
    await request(port, 'POST', `/messages/${m.id as number}/reactions`, { emoji_name: 'heart' }, people['Bashir Okafor']!);
    await request(port, 'POST', '/messages', { type: 'direct', to: [email], content: 'Lunch at noon?' }, people['Chen Wei']!);
    for (const who of Object.values(people).slice(0, 3)) await request(port, 'POST', '/users/me/presence', { status: 'active' }, who);

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1 })).newPage();
    await page.goto(`http://localhost:${port}/`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    const nav = page.getByRole('navigation', { name: 'Channels and conversations' });
    await nav.getByRole('link', { name: 'design', exact: true }).click();
    await nav.getByRole('link', { name: 'new logo', exact: true }).click();
    await page.getByRole('list', { name: 'Messages' }).getByRole('listitem').filter({ hasText: 'small sizes' }).waitFor();
    await page.getByLabel('Topic', { exact: true }).fill('new logo');
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Rounded it is. Shipping it with **1.4** :tada:');
    await page.waitForTimeout(500);
    fs.mkdirSync(path.dirname(OUT), { recursive: true });
    await page.screenshot({ path: OUT });
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
