// More of the web client in a real browser: compose (mention and emoji suggestions, preview,
// drafts), stars, deletes and topic moves, a new register after the server forgot the event
// queue, settings (theme), administration (channels, invitation links, roles), keyboard
// shortcuts, and the phone-sized layout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { httpRequest, newRealm, newUser } from '../helpers/client.js';
import { OwnClient, startOwnServer, until, type OwnServer } from '../helpers/ownServer.js';
import { launchBrowser, logIn, seriousAxeViolations, type TestBrowser } from './browser.js';

let server: OwnServer;
let browser: TestBrowser;
let page: Page;
let origin: string;
let owner: OwnClient;
let carol: OwnClient;
let ownerEmail: string;

const messages = () => page.getByRole('list', { name: 'Messages' });
const compose = () => page.getByRole('form', { name: 'Compose' });
const messageBox = () => compose().getByRole('textbox', { name: 'Message', exact: true });
const nav = () => page.getByRole('navigation', { name: 'Channels and conversations' });

interface Msg {
  id: number;
  subject: string;
  content: string;
  flags: string[];
}

async function newest(client: OwnClient): Promise<Msg> {
  const r = await client.ok('GET', '/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: [] });
  return (r.messages as Msg[])[0] ?? { id: 0, subject: '', content: '', flags: [] };
}

/** A channel's view, then one of its topics (the sidebar lists the topics of the channel shown). */
async function openTopic(channel: string, topic?: string): Promise<void> {
  await nav().getByRole('link', { name: channel, exact: true }).click();
  if (topic) await nav().getByRole('link', { name: topic, exact: true }).click();
}

beforeAll(async () => {
  server = await startOwnServer({}, false);
  const realm = await newRealm('webf');
  owner = new OwnClient(server.port, realm.owner);
  carol = new OwnClient(server.port, await newUser(realm.subdomain, 'Carol Chen'));
  ownerEmail = realm.owner.email!;
  origin = `http://${realm.subdomain}.localhost:${server.port}`;
  await owner.ok('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'ops' }], principals: [owner.userId, carol.userId] });
  browser = await launchBrowser();
  page = await browser.page();
  await logIn(page, origin, ownerEmail, 'owner-password-1');
  await nav().getByRole('link', { name: 'ops', exact: true }).click();
  await page.getByText('No messages here yet.').waitFor();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('compose', () => {
  it('suggests people after @ and emoji after :, and previews as the server renders', async () => {
    await compose().getByLabel('Topic', { exact: true }).fill('deploys');
    await messageBox().pressSequentially('Hi @car');
    await page.getByRole('option', { name: /Carol Chen/ }).waitFor();
    await messageBox().press('Enter');
    await messageBox().pressSequentially('ready :tad');
    await page.getByRole('option', { name: ':tada:' }).waitFor();
    await messageBox().press('Tab');
    await expect(messageBox().inputValue()).resolves.toBe('Hi @**Carol Chen** ready :tada: ');
    await compose().getByRole('button', { name: 'Preview' }).click();
    const preview = compose().getByLabel('Preview');
    await preview.locator('.user-mention', { hasText: '@Carol Chen' }).waitFor();
    await compose().getByRole('button', { name: 'Preview' }).click();
    await compose().getByRole('button', { name: 'Send' }).click();
    const sent = await until(async () => {
      const m = await newest(carol);
      return m.content.includes('user-mention') ? m : null;
    }, 'the message with a mention');
    expect(sent!.flags).toContain('mentioned');
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('keeps a draft per conversation in the browser', async () => {
    await compose().getByLabel('Topic', { exact: true }).fill('deploys');
    await messageBox().fill('Half-written thought');
    await nav().getByRole('link', { name: 'All messages' }).click();
    await page.waitForURL((u) => u.hash === '');
    await openTopic('ops', 'deploys');
    await expect(messageBox().inputValue()).resolves.toBe('Half-written thought');
    await nav().getByRole('button', { name: 'Drafts' }).click();
    const dialog = page.getByRole('dialog', { name: 'Drafts' });
    await dialog.getByText('Half-written thought').waitFor();
    await dialog.getByRole('button', { name: 'Delete draft' }).click();
    await dialog.getByText('No drafts.').waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('attaches a file: uploaded, linked in the message, and readable by another member', async () => {
    await openTopic('ops');
    await compose().getByLabel('Topic', { exact: true }).fill('files');
    await messageBox().fill('The runbook:');
    await compose().getByLabel('File to attach').setInputFiles({ name: 'runbook.txt', mimeType: 'text/plain', buffer: Buffer.from('step one\n') });
    await expect.poll(() => messageBox().inputValue()).toMatch(/^The runbook:\n\[runbook\.txt\]\(\/user_uploads\/\d+\/[^)]+\/runbook\.txt\)\n$/);
    await compose().getByRole('button', { name: 'Send' }).click();
    await messages().getByRole('listitem').filter({ hasText: 'The runbook:' }).getByRole('link', { name: 'runbook.txt' }).waitFor();
    const url = /href="(\/user_uploads\/[^"]+)"/.exec((await newest(carol)).content)![1]!;
    const got = await httpRequest(server.port, {
      method: 'GET', path: url, host: `${carol.user.subdomain}.localhost:${server.port}`,
      headers: { Authorization: 'Basic ' + Buffer.from(`${carol.user.email}:${carol.user.apiKey}`).toString('base64') },
    });
    expect(got.status).toBe(200);
    expect(got.body.__text).toBe('step one\n');
  });
});

describe('messages', () => {
  it('attaches files pasted or dropped into the message box', async () => {
    await openTopic('ops');
    await compose().getByLabel('Topic', { exact: true }).fill('files');
    await messageBox().fill('');
    // A paste and a drop carrying a file, as the browser makes them from the clipboard or a file manager.
    for (const [kind, name] of [['paste', 'pasted.txt'], ['drop', 'dropped.txt']] as const) {
      await messageBox().evaluate(
        (box, [kind, name]) => {
          // The page's constructors (the tests are type-checked without the DOM's types).
          const w = globalThis as unknown as Record<'DataTransfer' | 'File' | 'ClipboardEvent' | 'DragEvent', new (...args: unknown[]) => never>;
          const data: { items: { add(file: unknown): void } } = new w.DataTransfer();
          data.items.add(new w.File([`${kind} contents`], name, { type: 'text/plain' }));
          const init = { bubbles: true, cancelable: true };
          box.dispatchEvent(kind === 'paste' ? new w.ClipboardEvent('paste', { ...init, clipboardData: data }) : new w.DragEvent('drop', { ...init, dataTransfer: data }));
        },
        [kind, name] as const,
      );
      await expect.poll(() => messageBox().inputValue()).toContain(`[${name}](/user_uploads/`);
    }
    await compose().getByRole('button', { name: 'Send' }).click();
    await messages().getByRole('listitem').getByRole('link', { name: 'dropped.txt' }).waitFor();
    const content = (await newest(carol)).content;
    expect(content).toMatch(/href="\/user_uploads\/[^"]+\/pasted\.txt"/);
  });

  it('stars, moves a topic and deletes', async () => {
    await openTopic('ops');
    await carol.ok('POST', '/messages', { type: 'stream', to: 'ops', topic: 'disk', content: 'Disk is at 91%' });
    const item = messages().getByRole('listitem').filter({ hasText: 'Disk is at 91%' });
    await item.waitFor();
    await item.hover();
    await item.getByRole('button', { name: 'Star message' }).click();
    await item.getByRole('button', { name: 'Unstar message' }).waitFor();
    await nav().getByRole('link', { name: 'Starred messages' }).click();
    await messages().getByRole('listitem').filter({ hasText: 'Disk is at 91%' }).waitFor();

    await openTopic('ops', 'disk');
    await page.getByRole('button', { name: 'Move topic disk' }).click();
    await page.getByLabel('New topic name').fill('storage');
    await page.getByRole('button', { name: 'Move topic', exact: true }).click();
    await until(async () => (await newest(carol)).subject === 'storage', 'the topic moved');
    await nav().getByRole('link', { name: 'storage', exact: true }).waitFor();

    await owner.ok('POST', '/messages', { type: 'stream', to: 'ops', topic: 'storage', content: 'Cleaning up now' });
    const mine = messages().getByRole('listitem').filter({ hasText: 'Cleaning up now' });
    await mine.waitFor();
    page.once('dialog', (d) => void d.accept());
    await mine.hover();
    await mine.getByRole('button', { name: 'Delete message' }).click();
    await mine.waitFor({ state: 'detached' });
    expect((await newest(carol)).content).not.toContain('Cleaning up now');
  });

  it('loads older messages as the feed scrolls up, keeping the view still', async () => {
    for (let i = 0; i < 120; i++) await owner.ok('POST', '/messages', { type: 'stream', to: 'ops', topic: 'history', content: `history number ${i}`, read_by_sender: true });
    await openTopic('ops', 'history');
    const list = messages().getByRole('listitem');
    await list.filter({ hasText: 'history number 119' }).waitFor();
    expect(await list.count()).toBeLessThan(120);
    await until(async () => {
      await page.locator('.feed').evaluate((el) => (el.scrollTop = 0));
      return (await messages().locator('.content p', { hasText: /^history number 0$/ }).count()) === 1;
    }, 'the oldest message after scrolling up');
    await expect(list.count()).resolves.toBe(120);
  });

  it('registers again when the server no longer has its event queue', async () => {
    await openTopic('ops');
    let answered = false;
    await page.route('**/json/events?*', async (route) => {
      if (answered) return route.continue();
      answered = true;
      await route.fulfill({
        status: 400,
        contentType: 'application/json',
        body: JSON.stringify({ result: 'error', code: 'BAD_EVENT_QUEUE_ID', msg: 'Bad event queue ID: x', queue_id: 'x' }),
      });
    });
    const registered = page.waitForResponse((r) => r.url().endsWith('/json/register'));
    // The poll parked now ends with a heartbeat; the next one gets the error.
    await registered;
    await page.unroute('**/json/events?*');
    await carol.ok('POST', '/messages', { type: 'stream', to: 'ops', topic: 'storage', content: 'After the new queue' });
    await messages().getByRole('listitem').filter({ hasText: 'After the new queue' }).waitFor();
  });
});

describe('settings, administration and shortcuts', () => {
  it('switches to the dark theme, and the automatic one follows the system', async () => {
    const background = () => page.evaluate('getComputedStyle(document.body).backgroundColor');
    const light = 'rgb(255, 255, 255)';
    const dark = 'rgb(29, 31, 35)';
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByLabel('Theme').selectOption({ label: 'Dark' });
    await until(async () => (await page.getAttribute('html', 'data-theme')) === 'dark', 'the dark theme');
    expect(await background()).toBe(dark);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByLabel('Theme').selectOption({ label: 'Automatic' });
    await until(async () => (await page.getAttribute('html', 'data-theme')) === 'auto', 'the automatic theme');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe(dark);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await background()).toBe(light);
    await page.emulateMedia({ colorScheme: null });
    await dialog.getByLabel('Theme').selectOption({ label: 'Light' });
    await until(async () => (await page.getAttribute('html', 'data-theme')) === 'light', 'the light theme');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe(light);
    await page.emulateMedia({ colorScheme: null });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('creates a channel, an invitation link and changes a role', async () => {
    await page.getByRole('button', { name: 'Organization' }).click();
    const dialog = page.getByRole('dialog', { name: 'Organization' });
    await dialog.getByRole('combobox', { name: 'Role of Carol Chen' }).selectOption({ label: 'Moderator' });
    await until(async () => {
      const r = await carol.ok('GET', '/users/me');
      return r.role === 300;
    }, 'the new role');
    await dialog.getByRole('button', { name: 'Invitations' }).click();
    await dialog.getByRole('button', { name: 'Create invitation link' }).click();
    await expect(dialog.locator('output').textContent()).resolves.toMatch(/^http:\/\/.+\/join\/\w+/);
    await dialog.getByRole('button', { name: 'Channels', exact: true }).click();
    await dialog.getByLabel('Channel name').fill('launch');
    await dialog.getByRole('button', { name: 'Create channel' }).click();
    await dialog.getByRole('button', { name: 'Unsubscribe from launch' }).waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await nav().getByRole('link', { name: 'launch', exact: true }).waitFor();
  });

  it('has keyboard shortcuts: ? lists them, / searches, Escape closes', async () => {
    await page.locator('body').click({ position: { x: 640, y: 300 } });
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'detached' });
    await page.keyboard.press('/');
    await expect(page.evaluate('document.activeElement.getAttribute("aria-label")')).resolves.toBe('Search');
  });
});

describe('on a phone-sized screen', () => {
  it('opens the channels from a menu button', async () => {
    const phone = await browser.page({ width: 390, height: 800 });
    await logIn(phone, origin, ownerEmail, 'owner-password-1');
    const channels = phone.getByRole('navigation', { name: 'Channels and conversations' });
    await expect(channels.isVisible()).resolves.toBe(false);
    await phone.getByRole('button', { name: 'Channels' }).click();
    await channels.getByRole('link', { name: 'ops', exact: true }).click();
    await phone.getByRole('list', { name: 'Messages' }).getByRole('listitem').first().waitFor();
    // The menu closes once the channel opens.
    await channels.waitFor({ state: 'hidden' });
    await expect(phone.getByRole('textbox', { name: 'Message', exact: true }).isVisible()).resolves.toBe(true);
  });
});
