// Real Chromium for the console's tests and screenshots: Debian's /usr/bin/chromium driven by
// playwright-core, headless. playwright's launch() gives each browser a fresh temporary profile
// directory of its own and removes it on close (it refuses a --user-data-dir argument).

import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { describe } from 'vitest';

export const CHROMIUM = process.env.METERSTACK_CHROMIUM ?? '/usr/bin/chromium';

/**
 * `describe` for a suite that needs Chromium: on a machine without it the suite is skipped with a
 * line saying what to install, except in CI (`CI=true`), where a missing browser is a failure.
 */
export function describeBrowser(name: string, body: () => void): void {
  const missing = !existsSync(CHROMIUM) && process.env.CI !== 'true';
  if (missing) console.warn(`skipping "${name}": no Chromium at ${CHROMIUM} (apt-get install chromium)`);
  describe.skipIf(missing)(name, body);
}

export interface TestBrowser {
  browser: Browser;
  /** A new page at 1280×800, with page errors and CSP violations collected into `errors`. */
  page(opts?: { colorScheme?: 'light' | 'dark' }): Promise<Page>;
  errors: string[];
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  const errors: string[] = [];
  return {
    browser,
    errors,
    async page(opts = {}) {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        colorScheme: opts.colorScheme ?? 'light',
      });
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      // [SEC-4] A Content-Security-Policy violation is an error of the page like any other.
      page.on('console', (m) => {
        if (m.type() === 'error' && m.text().includes('Content Security Policy')) errors.push(m.text());
      });
      return page;
    },
    async close() {
      await browser.close();
    },
  };
}

/** Opens the console at `url` and gives it the admin token. */
export async function openConsole(page: Page, url: string, token: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('admin token').fill(token);
  await page.getByRole('button', { name: 'Open' }).click();
  await page.locator('[data-device]').first().waitFor();
}
