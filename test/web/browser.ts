// A real browser for the web client's tests: Debian's Chromium driven by playwright-core,
// one browser per test file, each with a fresh profile. axe-core checks pages for
// accessibility problems.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  browser: Browser;
  /** A new window with its own cookies. */
  page(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: apt-get install chromium`);
  // launch() gives the browser a fresh profile in a temporary folder of its own, removed at close.
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async page(viewport = { width: 1280, height: 800 }) {
      const context = await browser.newContext({ viewport });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      return page;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
    },
  };
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the debugging protocol: the page's policy forbids inline scripts.
  await page.evaluate(axeSource);
  const result = (await page.evaluate('axe.run()')) as { violations: AxeViolation[] };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Logs in through the form. */
export async function logIn(page: Page, origin: string, email: string, password: string): Promise<void> {
  await page.goto(origin + '/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  // The search field shows on every screen size (the sidebar is hidden on a phone).
  await page.getByRole('searchbox', { name: 'Search' }).waitFor();
}
