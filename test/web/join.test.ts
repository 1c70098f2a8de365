// An invitation link in a real browser: the link from the invitation email (real SMTP
// capture) opens the web client's join form with the organization's name; the form makes the
// account and lands in the app, logged in, with the invited channel. A used link, another
// address or a short password show the server's error and make no account. Over HTTP, the
// link answers GET and HEAD with the page and its policy, other methods as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { httpRequest } from '../helpers/client.js';
import { emailWorld, joinLink, mailsTo, type EmailWorld } from '../api/email-helpers.js';
import { launchBrowser, seriousAxeViolations, type TestBrowser } from './browser.js';

let w: EmailWorld;
let browser: TestBrowser;
let origin: string;
let channelId: number;

const nav = (page: Page) => page.getByRole('navigation', { name: 'Channels and conversations' });
const joinHeading = (page: Page) => page.getByRole('heading', { name: `Join Realm ${w.subdomain}` });

/** Invites an address into the channel and answers the link of the email it gets. */
async function invite(email: string): Promise<string> {
  await w.owner.ok('POST', '/invites', { invitee_emails: email, stream_ids: `[${channelId}]` });
  const [mail] = await mailsTo(w.smtp, email);
  return joinLink(mail!);
}

async function fillJoinForm(page: Page, email: string, fullName: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Full name').fill(fullName);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Join' }).click();
}

/** Waits for the form's error, which must be exactly the server's message. */
async function showsError(page: Page, message: string): Promise<void> {
  const alert = page.getByRole('alert').filter({ hasText: message });
  await alert.waitFor();
  expect(await alert.textContent()).toBe(message);
}

/** The page's own view of who is logged in (its session cookie), or the error code. */
type Me = { email?: string; full_name?: string; code?: string };
function whoAmI(page: Page): Promise<Me> {
  return page.evaluate(() => fetch('/json/users/me').then((r) => r.json() as Promise<Me>));
}

async function userEmails(): Promise<string[]> {
  return ((await w.owner.ok('GET', '/users')).members as { delivery_email?: string; email: string }[]).map((u) => u.delivery_email ?? u.email);
}

beforeAll(async () => {
  w = await emailWorld('webjoin');
  origin = `http://${w.subdomain}.localhost:${w.server.port}`;
  await w.owner.ok('POST', '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'lobby' }]) });
  const streams = (await w.owner.ok('GET', '/streams')).streams as { name: string; stream_id: number }[];
  channelId = streams.find((s) => s.name === 'lobby')!.stream_id;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.stop();
});

describe('the link over HTTP', () => {
  it('answers GET and HEAD with the page and its policy, with or without the last slash; POST as before', async () => {
    const link = await invite(`http-check@${w.subdomain}.test`);
    const path = new URL(link).pathname;
    const host = new URL(link).host;
    const page = await httpRequest(w.server.port, { method: 'GET', path: '/', host });
    for (const p of [path, path.replace(/\/$/, '')]) {
      const got = await httpRequest(w.server.port, { method: 'GET', path: p, host });
      expect(got.status).toBe(200);
      expect(got.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(got.headers['cache-control']).toBe('no-cache');
      expect(got.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
      expect(String(got.headers['content-security-policy'])).toContain("script-src 'self'");
      expect(got.body.__text).toBe(page.body.__text);

      const head = await httpRequest(w.server.port, { method: 'HEAD', path: p, host });
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(head.headers['content-security-policy']).toBe(page.headers['content-security-policy']);
      expect(head.headers['content-length']).toBe(String(Buffer.byteLength(page.body.__text as string)));
      expect(head.body.__text).toBe('');
    }
    const compressed = await httpRequest(w.server.port, { method: 'GET', path, host, headers: { 'Accept-Encoding': 'br' } });
    expect(compressed.headers['content-encoding']).toBe('br');

    const post = await httpRequest(w.server.port, { method: 'POST', path, host, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: '' });
    expect(post.status).toBe(404);
    expect(post.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    for (const other of ['/join/', `${path}more/`]) {
      const got = await httpRequest(w.server.port, { method: 'GET', path: other, host });
      expect(got.status).toBe(404);
      expect(got.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    }
  });
});

describe('the join form', () => {
  let page: Page;
  let link: string;
  const email = () => `newcomer@${w.subdomain}.test`;

  it("shows the organization's name, makes the account and opens the app in the invited channel", async () => {
    link = await invite(email());
    page = await browser.page();
    await page.goto(link);
    await joinHeading(page).waitFor();
    await expect(page.getByText('The password needs at least 6 characters.').isVisible()).resolves.toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await fillJoinForm(page, email(), 'New Comer', 'pass-word-123');
    await page.getByRole('searchbox', { name: 'Search' }).waitFor();
    expect(page.url()).toBe(origin + '/');
    await nav(page).getByRole('link', { name: 'lobby', exact: true }).waitFor();
    await expect(whoAmI(page)).resolves.toMatchObject({ email: email(), full_name: 'New Comer' });
    expect(await userEmails()).toContain(email());
  });

  it('shows the error of a used link and keeps the session there was', async () => {
    // The same browser, logged in as the new account: the form again, with a note.
    await page.goto(link);
    await joinHeading(page).waitFor();
    await page.getByText('This browser is logged in to an account already.', { exact: false }).waitFor();
    await fillJoinForm(page, email(), 'New Comer', 'pass-word-123');
    await showsError(page, 'Invalid invitation link.');
    expect(page.url()).toBe(link);
    await expect(whoAmI(page)).resolves.toMatchObject({ email: email() });

    // A browser without a session stays logged out, on the form.
    const fresh = await browser.page();
    await fresh.goto(link);
    await fillJoinForm(fresh, email(), 'New Comer', 'pass-word-123');
    await showsError(fresh, 'Invalid invitation link.');
    expect(fresh.url()).toBe(link);
    await joinHeading(fresh).waitFor();
    await expect(whoAmI(fresh)).resolves.toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await fresh.context().cookies()).some((c) => c.name === 'sessionid')).toBe(false);
  });

  it('refuses another address and a short password, and makes no account', async () => {
    const invited = `second@${w.subdomain}.test`;
    const other = `someone-else@${w.subdomain}.test`;
    const secondLink = await invite(invited);
    const fresh = await browser.page();
    await fresh.goto(secondLink);
    await joinHeading(fresh).waitFor();
    await fillJoinForm(fresh, other, 'Someone Else', 'pass-word-123');
    await showsError(fresh, 'This invitation is for another email address.');
    await fillJoinForm(fresh, invited, 'Second Person', 'short');
    await showsError(fresh, 'The password is too weak.');
    expect(fresh.url()).toBe(secondLink);
    await expect(whoAmI(fresh)).resolves.toMatchObject({ code: 'UNAUTHORIZED' });
    const emails = await userEmails();
    expect(emails).not.toContain(other);
    expect(emails).not.toContain(invited);
  });
});
