// The console never hangs on its key store or its mint lock [CON-4]. Another tab of the origin (an
// older console, any page) can hold an IndexedDB connection that never closes while a deleteDatabase
// or an upgrade waits on it: every later open of the store is queued behind that wait, forever. And a
// tab can hold the account's mint lock without end. Before, the console's first /api/v2 request then
// never answered (its Read metrics stayed silent, its button busy); now each wait is bounded and the
// console goes on with this tab's memory or without the lock.

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryDb } from '../helpers/db.ts';
import { ADMIN_TOKEN, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

let tmp: ReturnType<typeof tempDir>;
let service: TestService;
let browser: TestBrowser;

beforeAll(async () => {
  tmp = tempDir('meterstack-keystore-stuck-');
  [service, browser] = await Promise.all([
    startTestService({ demo: true, db: `${tmp.dir}/console.db` }),
    launchBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  tmp?.remove();
});

/** A fresh origin's storage: a new context, and in it the other tab, on a page of the service. */
async function otherTab(b: Browser): Promise<{ context: BrowserContext; other: Page }> {
  const context = await b.newContext({ viewport: { width: 1280, height: 800 } });
  const other = await context.newPage();
  await other.goto(`${service.svc.httpUrl}/console/style.css`);
  return { context, other };
}

/** Read metrics of a meter in a console tab: bounded, so a hang fails here, saying so. */
async function readMetrics(page: Page, id: string): Promise<void> {
  await page.locator(`[data-device="${id}"]`).click({ timeout: 8000 });
  const meter = page.locator(`[data-meter="${id}"]`);
  await meter.locator('[data-action="read-metrics"]').click({ timeout: 8000 });
  await meter.locator('[data-metrics]').waitFor({ timeout: 15_000 });
  expect(await meter.locator('[data-metrics]').textContent()).toContain('relay');
}

const liveConsoleKeys = async () =>
  (
    await queryDb<{ n: number }>(
      service.db,
      'SELECT COUNT(*) AS n FROM api_keys WHERE account_id = 1 AND wall_expires_at IS NOT NULL AND revoked_at IS NULL',
      [],
    )
  )[0]!.n;

describeBrowser('the console’s key store and mint lock never hang it [CON-4]', () => {
  it('[CON-4] another tab’s connection blocks a deleteDatabase: the console’s open, queued behind it, is given up in time and the console acts', async () => {
    const { context, other } = await otherTab(browser.browser);
    try {
      // Held, never closed, deaf to version changes: the deleteDatabase waits on it for ever. (Page
      // code as text: this project's TypeScript has no DOM types.)
      const blocked = await other.evaluate(`new Promise((resolve) => {
        const r = indexedDB.open('meterstack.console', 1);
        r.onupgradeneeded = () => r.result.createObjectStore('keys');
        r.onsuccess = () => {
          globalThis.held = r.result;
          const del = indexedDB.deleteDatabase('meterstack.console');
          del.onblocked = () => resolve(true);
          del.onsuccess = () => resolve(false);
        };
      })`);
      expect(blocked, 'the deleteDatabase is blocked by the held connection').toBe(true);
      const page = await context.newPage();
      await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
      const before = Date.now();
      await readMetrics(page, 'MTR-A101');
      expect(Date.now() - before).toBeLessThan(15_000);
      // Within this tab, one key still: a second read reuses it.
      const keys = await liveConsoleKeys();
      await readMetrics(page, 'MTR-A102');
      expect(await liveConsoleKeys()).toBe(keys);
    } finally {
      await context.close();
    }
  });

  it('[CON-4] another tab holds the account’s mint lock for ever: the console mints without it, in time, and acts', async () => {
    const { context, other } = await otherTab(browser.browser);
    try {
      // The lock taken and never let go.
      await other.evaluate(`new Promise((resolve) => {
        navigator.locks.request('meterstack.console.key.1', () => {
          resolve();
          return new Promise(() => {});
        });
      })`);
      const page = await context.newPage();
      await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
      await readMetrics(page, 'MTR-A101');
      // The key it minted is held in the store the tabs share, and reused.
      const held = await page.evaluate(
        `import('/console/keystore.js').then((m) => m.heldKey(1)).then((h) => h?.key)`,
      );
      expect(held).toMatch(/^msk_/);
      await readMetrics(page, 'MTR-A102');
      expect(
        await page.evaluate(`import('/console/keystore.js').then((m) => m.heldKey(1)).then((h) => h?.key)`),
      ).toBe(held);
    } finally {
      await context.close();
    }
  });
});
