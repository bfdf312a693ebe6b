// A meter's panel keeps what it read while the meter's detail is still on its way [CON-5]: one intent,
// one request, and its answer shown. The panel used to be rebuilt (re-keyed) when the detail arrived,
// so a Read metrics clicked before then answered into a panel that no longer existed: no metrics, no
// status, and console-keys.test.ts's `[data-metrics]` wait hung to its 20 s timeout in a loaded CI run
// (issue 18: "a reload, and a second tab, reuse it"). Here both answers are held back, in the order
// that lost it: the detail arrives after the click and before the metrics.

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

let tmp: ReturnType<typeof tempDir>;
let service: TestService;
let browser: TestBrowser;
let page: Page;

const held = (ms: number) => async (route: { continue(): Promise<void> }) => {
  await new Promise((r) => setTimeout(r, ms));
  await route.continue();
};

beforeAll(async () => {
  tmp = tempDir('meterstack-late-detail-');
  [service, browser] = await Promise.all([
    startTestService({ demo: true, db: `${tmp.dir}/console.db` }),
    launchBrowser(),
  ]);
  page = await browser.page();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  tmp?.remove();
});

describeBrowser('a meter’s panel while its detail is on its way [CON-5]', () => {
  it('[CON-5] Read metrics clicked before the detail arrives, answered after it: the answer is shown, and the load fields take the meter’s load', async () => {
    const detail = ok<{ load: { kind: string; watts?: number; peakWatts?: number } }>(
      await service.sim('GET', '/devices/MTR-A103'),
    );
    await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
    await page.route(/\/sim\/v1\/devices\/MTR-A103$/, held(600));
    await page.route(/\/api\/v2\/devices\/MTR-A103\/metrics$/, held(1500));
    await page.locator('[data-device="MTR-A103"]').click();
    await page.locator('[data-meter="MTR-A103"] [data-action="read-metrics"]').click();
    // Bounded waits: a lost answer is a failure that says so, not a hang.
    const metrics = page.locator('[data-meter="MTR-A103"] [data-metrics]');
    await expect
      .poll(() => metrics.count(), { timeout: 10_000, message: 'the metrics read is shown' })
      .toBe(1);
    expect(await metrics.textContent()).toContain('relay');
    expect(await page.locator('[data-meter="MTR-A103"] [data-status]').textContent()).toMatch(
      /^Read metrics: /,
    );
    // The detail's own work is still done: the load fields show the meter's load.
    const watts = detail.load.watts ?? detail.load.peakWatts;
    expect(await page.getByLabel('load profile').inputValue()).toBe(detail.load.kind);
    expect(await page.getByLabel('load watts').inputValue()).toBe(String(watts));
    expect(browser.errors).toEqual([]);
  });
});
