// The web client in a real browser against a server of the test's own: log in, open a
// channel, send, see another user's message arrive live, react, edit, search, a direct
// message, log out; the main views have no serious accessibility problem; the page's policy
// keeps inline scripts from running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newRealm, newUser, type Client } from '../helpers/client.js';
import { OwnClient, startOwnServer, until, type OwnServer } from '../helpers/ownServer.js';
import { launchBrowser, logIn, seriousAxeViolations, type TestBrowser } from './browser.js';

let server: OwnServer;
let browser: TestBrowser;
let page: Page;
let origin: string;
let owner: OwnClient;
let bob: OwnClient;
let ownerEmail: string;

const messages = () => page.getByRole('list', { name: 'Messages' });
/** Waits until the feed shows exactly one message, the one with this text. */
const onlyMessage = (text: string) =>
  until(async () => (await messages().getByRole('listitem').count()) === 1 && (await messages().getByRole('listitem').filter({ hasText: text }).count()) === 1, `only "${text}" in the feed`);
const compose = () => page.getByRole('form', { name: 'Compose' });

beforeAll(async () => {
  server = await startOwnServer({}, false);
  const realm = await newRealm('web');
  const bobUser: Client = await newUser(realm.subdomain, 'Bob Builder');
  owner = new OwnClient(server.port, realm.owner);
  bob = new OwnClient(server.port, bobUser);
  ownerEmail = realm.owner.email!;
  origin = `http://${realm.subdomain}.localhost:${server.port}`;
  await owner.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'design' }], principals: [owner.userId, bob.userId] });
  browser = await launchBrowser();
  page = await browser.page();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('web client', () => {
  it('shows an accessible login form and logs in with email and password', async () => {
    await page.goto(origin + '/');
    await expect(page.getByRole('button', { name: 'Log in' }).isVisible()).resolves.toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.getByLabel('Email').fill(ownerEmail);
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Your username or password is incorrect');
    await logIn(page, origin, ownerEmail, 'owner-password-1');
    const nav = page.getByRole('navigation', { name: 'Channels and conversations' });
    await nav.waitFor();
    await nav.getByRole('link', { name: 'design', exact: true }).waitFor();
  });

  it('opens a channel, sends a message and shows it as the server rendered it', async () => {
    await page.getByRole('navigation', { name: 'Channels and conversations' }).getByRole('link', { name: 'design', exact: true }).click();
    await page.waitForURL(/#narrow\/channel\/\d+-design$/);
    await compose().getByLabel('Topic', { exact: true }).fill('logo');
    await compose().getByRole('textbox', { name: 'Message', exact: true }).fill('First **draft** of the logo');
    await compose().getByRole('button', { name: 'Send' }).click();
    const item = messages().getByRole('listitem').filter({ hasText: 'First draft of the logo' });
    await item.waitFor();
    await expect(item.locator('strong', { hasText: 'draft' }).count()).resolves.toBe(1);
    // The topic now shows in the sidebar under its channel, as a link named by it.
    await page.getByRole('navigation', { name: 'Channels and conversations' }).getByRole('link', { name: 'logo', exact: true }).waitFor();
  });

  it("shows another user's message live", async () => {
    await bob.ok('POST', '/messages', { type: 'stream', to: 'design', topic: 'logo', content: 'Looks great, ship it' });
    await messages().getByRole('listitem').filter({ hasText: 'Looks great, ship it' }).waitFor({ timeout: 5000 });
    // Seen in the view, it is marked read on the server.
    await until(async () => {
      const r = await owner.ok('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] });
      return (r.messages as { flags: string[] }[])[0]!.flags.includes('read');
    }, 'the message marked read');
  });

  it('reacts with an emoji and takes the reaction back', async () => {
    const item = messages().getByRole('listitem').filter({ hasText: 'Looks great, ship it' });
    await item.hover();
    await item.getByRole('button', { name: 'Add reaction' }).click();
    await page.getByLabel('Search emoji').fill('tada');
    await page.getByRole('dialog', { name: 'Emoji' }).getByRole('button', { name: 'tada', exact: true }).click();
    const reaction = item.getByRole('button', { name: 'tada', exact: true });
    await reaction.waitFor();
    await expect(reaction.getAttribute('aria-pressed')).resolves.toBe('true');
    const reactions = await until(async () => {
      const r = await bob.ok('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] });
      const list = (r.messages as { reactions: { emoji_name: string }[] }[])[0]!.reactions;
      return list.length ? list : null;
    }, 'the reaction on the server');
    expect(reactions!.map((x) => x.emoji_name)).toEqual(['tada']);
    await reaction.click();
    await reaction.waitFor({ state: 'detached' });
  });

  it('edits its own message', async () => {
    const found = messages().getByRole('listitem').filter({ hasText: 'First draft of the logo' });
    // While edited, the item shows a text box instead of the text: hold it by its id.
    const item = page.locator(`li[data-id="${await found.getAttribute('data-id')}"]`);
    await item.hover();
    await item.getByRole('button', { name: 'Edit message' }).click();
    const box = item.getByRole('textbox', { name: 'Edit message' });
    await expect(box.inputValue()).resolves.toBe('First **draft** of the logo');
    await box.fill('Second *draft* of the logo');
    await item.getByRole('button', { name: 'Save' }).click();
    await messages().getByRole('listitem').filter({ hasText: 'Second draft of the logo' }).locator('em').waitFor();
  });

  it('searches with operators', async () => {
    await bob.ok('POST', '/messages', { type: 'stream', to: 'design', topic: 'colors', content: 'Teal or orange?' });
    await page.getByRole('searchbox', { name: 'Search' }).fill('channel:design topic:colors');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    // The message also arrives live in the view the search replaces: wait for the narrow's own view.
    await page.waitForURL(/#narrow\/channel\/\d+-design\/topic\/colors$/);
    await onlyMessage('Teal or orange?');
    await page.getByRole('searchbox', { name: 'Search' }).fill('ship');
    await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await page.waitForURL(/#narrow\/search\/ship$/);
    await onlyMessage('Looks great, ship it');
  });

  it('sends a direct message from the user list', async () => {
    await page.getByRole('complementary', { name: 'Users' }).getByRole('link', { name: 'Bob Builder' }).click();
    await page.waitForURL(/#narrow\/dm\//);
    await expect(compose().getByLabel('To', { exact: true }).inputValue()).resolves.toBe(bob.user.email);
    await compose().getByRole('textbox', { name: 'Message', exact: true }).fill('Lunch at noon?');
    await compose().getByRole('button', { name: 'Send' }).click();
    await messages().getByRole('listitem').filter({ hasText: 'Lunch at noon?' }).waitFor();
    const received = await until(async () => {
      const r = await bob.ok('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] });
      return (r.messages as { content: string }[]).find((m) => m.content.includes('Lunch at noon?'));
    }, 'the direct message');
    expect(received).toBeTruthy();
  });

  it('has no serious accessibility problem on the main view', async () => {
    await page.goto(origin + '/#narrow/channel/' + 'x');
    await page.getByRole('navigation', { name: 'Channels and conversations' }).getByRole('link', { name: 'design', exact: true }).click();
    await messages().getByRole('listitem').first().waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('runs no inline script', async () => {
    // Evaluated in the page (as text: the tests are type-checked without the DOM's names).
    const outcome = await page.evaluate(`new Promise((resolve) => {
      let blocked = false;
      document.addEventListener('securitypolicyviolation', () => (blocked = true), { once: true });
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true';
      document.body.appendChild(s);
      setTimeout(() => resolve({ ran: window.__inlineRan === true, blocked }), 200);
    })`);
    expect(outcome).toEqual({ ran: false, blocked: true });
  });

  it('logs out, and the old session no longer works', async () => {
    const cookies = await page.context().cookies(origin);
    const session = cookies.find((c) => c.name === 'sessionid');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    const status = await page.evaluate(async () => (await fetch('/json/users/me')).status);
    expect(status).toBe(401);
  });
});
