// The fleet view with 10,000 meters (issue 9 §4 speed): GET /sim/v1/fleet stays cheap, the page shows
// the fleet within 1.5 s of opening, only the rows in view are in the DOM, and scrolling to the end
// shows the last meter. The devices are external (records only, no meter running): the view and the
// endpoint do the same work for either kind, and 10,000 running meters would not fit in a test.

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { launchBrowser, type TestBrowser } from './browser.ts';

const N = 10_000;
let service: TestService;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ db: ':memory:' }), launchBrowser()]);
  const world = service.svc.world;
  const { account } = await world.createAccount('big');
  const space = await world.createSpace({ accountId: account.id, name: 'Estate' });
  for (let i = 0; i < N; i++) {
    await world.provisionDevice({
      accountId: account.id,
      spaceId: i % 2 === 0 ? space.id : null,
      deviceId: `BIG-${String(i).padStart(5, '0')}`,
      external: true,
    });
  }
  page = await browser.page();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('the fleet with 10,000 meters', () => {
  it('GET /sim/v1/fleet answers every row quickly', async () => {
    const t0 = performance.now();
    const res = await service.sim<{ devices: { device_id: string; space_id: number | null }[] }>('GET', '/fleet');
    const ms = performance.now() - t0;
    expect(res.body.data.devices).toHaveLength(N);
    expect(res.body.data.devices[1]!.space_id).toBeNull();
    console.log(`GET /sim/v1/fleet, ${N} devices: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1500);
  });

  it('renders within 1.5 s, keeps only visible rows in the DOM, scrolls to the last meter', async () => {
    await page.goto(service.svc.httpUrl);
    await page.getByLabel('admin token').fill(ADMIN_TOKEN);
    const t0 = Date.now();
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator('.count', { hasText: `${N} of ${N} meters` }).waitFor();
    await page.locator('[data-device="BIG-00000"]').waitFor();
    const ms = Date.now() - t0;
    console.log(`fleet view, ${N} meters: first render ${ms} ms after the token`);
    expect(ms).toBeLessThan(1500);
    const inDom = await page.locator('[data-device]').count();
    expect(inDom).toBeGreaterThan(10);
    expect(inDom).toBeLessThan(100);

    await page.locator('.rows').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await page.locator(`[data-device="BIG-0${N - 1}"]`).waitFor({ timeout: 2000 });

    // A filter narrows the 10,000 rows at once.
    await page.getByLabel('space filter').selectOption('null');
    await page.locator('.count', { hasText: `${N / 2} of ${N} meters` }).waitFor({ timeout: 2000 });
    expect(browser.errors).toEqual([]);
  });
});
