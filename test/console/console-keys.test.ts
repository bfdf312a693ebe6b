// The console's own API keys (issue 18 item 10): one short-lived key per account, minted once however
// many meters of the account are opened at once, reused after a reload and by a second tab, not ended
// by a virtual clock advance, revoked at logout (then answered as any invalid key). [CON-4]

import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { queryDb } from '../helpers/db.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { type Tenant, tenant, v2Client } from '../helpers/v2.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

/** The demo world's account (every demo meter is in it). */
const DEMO_ACCOUNT = 1;

let tmp: ReturnType<typeof tempDir>;
let service: TestService;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;
let other: Tenant;

interface KeyRow {
  key_hash: string;
  wall_expires_at: number | null;
  expires_at: number | null;
  revoked_at: number | null;
}

/** The keys the console minted for an account: the ones with a wall-clock life. */
const consoleKeys = (account = DEMO_ACCOUNT) =>
  queryDb<KeyRow>(
    service.db,
    'SELECT key_hash, wall_expires_at, expires_at, revoked_at FROM api_keys WHERE account_id = ? AND wall_expires_at IS NOT NULL ORDER BY created_at',
    [account],
  );

/** The key the console holds for an account (what its key store, shared by the tabs, says). */
const heldKey = async (p: Page, account = DEMO_ACCOUNT): Promise<string | undefined> =>
  (await p.evaluate(
    `import('/console/keystore.js').then((m) => m.heldKey(${account})).then((h) => h?.key)`,
  )) as string | undefined;

/** The step a test is at: a failure, also the test's own timeout, names it (onTestFailed below). */
let at = '';
async function step<T>(label: string, f: () => Promise<T>): Promise<T> {
  at = label;
  try {
    return await f();
  } catch (e) {
    throw new Error(`at step "${label}": ${(e as Error).message}`, { cause: e });
  }
}

/** Every wait of a step is bounded well under the test's 20 s: a lost answer fails, naming the step. */
const WAIT = { timeout: 8000 };

async function readMetrics(p: Page, id: string, tab = 'tab'): Promise<void> {
  const meter = p.locator(`[data-meter="${id}"]`);
  await step(`${tab}: open ${id}`, () => p.locator(`[data-device="${id}"]`).click(WAIT));
  await step(`${tab}: click Read metrics of ${id}`, () =>
    meter.locator('[data-action="read-metrics"]').click(WAIT),
  );
  // This meter's own answer: an element that is not there is waited for (bounded), not polled forever.
  const shown = meter.locator('[data-metrics]');
  await step(`${tab}: the metrics of ${id} shown`, () => shown.waitFor(WAIT));
  expect(await shown.textContent(), `${tab}: metrics of ${id}`).toContain('relay');
}

beforeAll(async () => {
  tmp = tempDir('meterstack-keys-');
  [service, browser] = await Promise.all([
    startTestService({ demo: true, db: `${tmp.dir}/console.db` }),
    launchBrowser(),
  ]);
  other = await tenant(service.sim);
  page = await browser.page();
  context = page.context();
});

beforeEach(({ onTestFailed }) => {
  at = '(before the first step)';
  onTestFailed(() => console.error(`[console-keys] failed at step: ${at}`));
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  tmp?.remove();
});

describeBrowser('the console’s keys [CON-4]', () => {
  it('[CON-4] opening several meters of one account at once mints one short-lived key', async () => {
    await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
    expect(await consoleKeys()).toHaveLength(0);
    const before = Date.now();
    // Each meter opened asks for history and the journal at once, and then its metrics.
    await readMetrics(page, 'MTR-A101');
    await readMetrics(page, 'MTR-A102');
    await readMetrics(page, 'MTR-B201');
    const keys = await consoleKeys();
    expect(keys).toHaveLength(1);
    expect(keys[0]!.revoked_at).toBeNull();
    expect(keys[0]!.expires_at).toBeNull();
    // An hour on the wall clock.
    expect(keys[0]!.wall_expires_at).toBeGreaterThanOrEqual(before + 3_600_000 - 2000);
    expect(keys[0]!.wall_expires_at).toBeLessThanOrEqual(Date.now() + 3_600_000 + 2000);
  });

  it('[CON-4] a reload, and a second tab, reuse it', async () => {
    const key = await step('the key held before the reload', () => heldKey(page));
    expect(key, 'a key held before the reload').toMatch(/^msk_/);
    await step('reload', () => page.reload(WAIT));
    await step('the fleet after the reload', () => page.locator('[data-device="MTR-A103"]').waitFor(WAIT));
    await readMetrics(page, 'MTR-A103', 'reloaded tab');
    const second = await context.newPage();
    // the admin token is per tab
    await step('second tab: open the console', () => openConsole(second, service.svc.httpUrl, ADMIN_TOKEN));
    await readMetrics(second, 'MTR-A104', 'second tab');
    expect(await step('second tab: the key held', () => heldKey(second)), 'the second tab’s key').toBe(key);
    expect(await consoleKeys(), 'console keys minted for the account').toHaveLength(1);
    await second.close();
  });

  it('[CON-4] probe: two tabs acting for one account at the same moment mint one key (Web Locks)', async () => {
    const fresh = await browser.browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const [a, b] = [await fresh.newPage(), await fresh.newPage()];
      await Promise.all([
        openConsole(a, service.svc.httpUrl, ADMIN_TOKEN),
        openConsole(b, service.svc.httpUrl, ADMIN_TOKEN),
      ]);
      // Both tabs share storage but not yet a key: no tab holds one for the other account.
      const minted = (await consoleKeys(other.accountId)).length;
      expect(minted).toBe(0);
      expect(await a.evaluate('isSecureContext && !!navigator.locks')).toBe(true);
      // Each mint takes 300 ms: long enough for the other tab to ask meanwhile.
      await fresh.route(/\/sim\/v1\/accounts\/\d+\/keys$/, async (route) => {
        await new Promise((r) => setTimeout(r, 300));
        await route.continue();
      });
      await Promise.all(
        [a, b].map((p) =>
          p.evaluate(`import('/console/api.js').then((m) =>
        Promise.all([1, 2, 3].map(() => m.v2(${other.accountId}, 'GET', '/spaces/'))))`),
        ),
      );
      expect(await consoleKeys(other.accountId)).toHaveLength(1);
      expect(await heldKey(a, other.accountId)).toBe(await heldKey(b, other.accountId));
    } finally {
      await fresh.close();
    }
  });

  it('[CON-4] probe: a virtual clock advance of a day does not log the console out', async () => {
    const key = await heldKey(page);
    await page.locator('[data-advance="86400"]').click();
    await expect.poll(() => page.locator('[data-advance="86400"]').isEnabled()).toBe(true);
    await page.locator('[data-action="relay-off"]').click();
    await expect.poll(() => page.locator('[data-status]').textContent()).toContain('relay state updated');
    await page.locator('[data-action="relay-on"]').click();
    await expect.poll(() => page.locator('[data-status]').textContent()).toContain('Relay on:');
    expect(await heldKey(page)).toBe(key);
    expect(await consoleKeys()).toHaveLength(1);
  });

  it('[CON-4] probe: the console’s key opens nothing of another account', async () => {
    const v2 = v2Client(service.svc.httpUrl, (await heldKey(page))!);
    expect((await v2('GET', `/devices/MTR-A101/metrics`)).status).toBe(200);
    expect((await v2('GET', `/devices/${other.deviceId}/metrics`)).body.error?.code).toBe('device_not_found');
    expect((await v2('PUT', `/devices/${other.deviceId}/relay`, { state: false })).body.error?.code).toBe(
      'device_not_found',
    );
  });

  it('[CON-4] logout revokes it: it is then answered as any invalid key, and a new session mints anew', async () => {
    const key = (await heldKey(page))!;
    await page.locator('[data-action="logout"]').click();
    await page.getByLabel('admin token').waitFor();
    const [row] = await consoleKeys();
    expect(row!.revoked_at).not.toBeNull();
    const v2 = v2Client(service.svc.httpUrl);
    const refused = await v2('GET', '/spaces/', undefined, key);
    const unknown = await v2('GET', '/spaces/', undefined, 'msk_never_minted');
    expect(refused.status).toBe(401);
    expect(refused.body.error).toEqual(unknown.body.error);
    expect(refused.body.error?.code).toBe('authentication_error');
    expect(await heldKey(page)).toBeUndefined();

    // Logged in again: one new key, the old one stays revoked.
    await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
    await readMetrics(page, 'MTR-A101');
    const keys = await consoleKeys();
    expect(keys.map((k) => k.revoked_at === null)).toEqual([false, true]);
  });

  it('[CON-4] probe: a key revoked behind the console’s back (another tab’s logout) is replaced once, the action goes through', async () => {
    const key = (await heldKey(page))!;
    ok(await service.sim('DELETE', `/keys/${encodeURIComponent(key)}`));
    await page.locator('[data-action="read-metrics"]').click();
    await expect.poll(() => page.locator('[data-status]').textContent()).toMatch(/Read metrics: /);
    expect(await page.locator('[data-status]').textContent()).not.toContain('failed');
    const keys = await consoleKeys();
    expect(keys.filter((k) => k.revoked_at === null)).toHaveLength(1);
    expect(await heldKey(page)).not.toBe(key);
  });

  it('[CON-4] a key near its end (under 10 min left) is replaced, and the old one revoked: one valid key', async () => {
    const key = (await heldKey(page))!;
    // As if it had been minted 55 minutes ago (this tab's clock measures its life).
    await page.evaluate(`import('/console/keystore.js').then((m) =>
      m.holdKey(${DEMO_ACCOUNT}, { key: ${JSON.stringify(key)}, until: Date.now() + 5 * 60_000 }))`);
    await page.locator('[data-action="read-metrics"]').click();
    await expect.poll(() => heldKey(page)).not.toBe(key);
    await expect.poll(async () => (await consoleKeys()).filter((k) => k.revoked_at === null).length).toBe(1);
    const refused = await v2Client(service.svc.httpUrl)('GET', '/spaces/', undefined, key);
    expect(refused.status).toBe(401);
    expect(browser.errors).toEqual([]);
  });
});
