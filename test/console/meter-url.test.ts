// Issue 20 item 13: each meter has its own place. Opening another meter shows it from its top (the
// panel kept the last one's scroll position, so the new meter's name was off-screen), and its URL
// (`#/meter/MTR-B201`) reloads, can be shared and the back button leaves it (spec-decisions 190).

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

let service: TestService;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ demo: true, db: ':memory:' }), launchBrowser()]);
  page = await browser.page();
  await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** The browser's window, as far as these checks use it (the tests are type-checked without the DOM lib). */
type Win = { innerHeight: number };

/** Whether the meter's name (its panel heading) is inside the window. */
const nameInView = (id: string) =>
  page.locator(`[data-meter="${id}"] h2`).evaluate((h) => {
    const r = h.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= (globalThis as unknown as Win).innerHeight && h.textContent;
  });

describeBrowser('a meter’s page: its top, its URL', () => {
  it('open meter A, scroll down its panel, open meter B: B’s name is in view', async () => {
    await page.locator('[data-device="MTR-A101"]').click();
    const panel = page.locator('[data-meter="MTR-A101"]');
    await panel.locator('[data-action="relay-on"]').waitFor();
    await panel.evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    expect(await nameInView('MTR-A101')).toBe(false);
    await page.locator('[data-device="MTR-B202"]').click();
    await page.locator('[data-meter="MTR-B202"]').waitFor();
    expect(await nameInView('MTR-B202')).toBe('MTR-B202');
    expect(new URL(page.url()).hash).toBe('#/meter/MTR-B202');
  });

  it('reloading #/meter/MTR-B201 opens MTR-B201; the back button goes to the meter before', async () => {
    await page.locator('[data-device="MTR-B201"]').click();
    await page.locator('[data-meter="MTR-B201"]').waitFor();
    await page.reload();
    await page.locator('[data-meter="MTR-B201"]').waitFor();
    expect(await nameInView('MTR-B201')).toBe('MTR-B201');
    await page.goBack();
    await page.locator('[data-meter="MTR-B202"]').waitFor();
    expect(await page.locator('[data-meter]').count()).toBe(1);
  });

  it('on a 390 px phone, #/meter/MTR-X001 shows its name and brings its row into the fleet’s view', async () => {
    const phone = await browser.page();
    await phone.setViewportSize({ width: 390, height: 844 });
    await openConsole(phone, service.svc.httpUrl, ADMIN_TOKEN);
    await phone.goto(`${service.svc.httpUrl}/#/meter/MTR-X001`);
    await phone.locator('[data-meter="MTR-X001"]').waitFor();
    const inBox = async (id: string) => {
      const box = await phone.locator('.fleet .rows').boundingBox();
      const r = await phone.locator(`[data-device="${id}"]`).boundingBox();
      return !!box && !!r && r.y >= box.y && r.y + r.height <= box.y + box.height;
    };
    await expect.poll(() => inBox('MTR-X001')).toBe(true);
    const h = await phone.locator('[data-meter="MTR-X001"] h2').boundingBox();
    expect(h!.y + h!.height).toBeLessThanOrEqual(844);
    await phone.context().close();
  });

  it('a shared link opens the meter in a new tab; closing it leaves #/fleet', async () => {
    const other = await browser.page();
    // The admin token is per tab (sessionStorage): a new tab asks for it, then opens the meter.
    await other.goto(`${service.svc.httpUrl}/#/meter/MTR-A103`);
    await other.getByLabel('admin token').fill(ADMIN_TOKEN);
    await other.getByRole('button', { name: 'Open' }).click();
    await other.locator('[data-meter="MTR-A103"]').waitFor();
    await other.getByLabel('close meter').click();
    await expect.poll(() => other.locator('[data-meter]').count()).toBe(0);
    expect(new URL(other.url()).hash).toBe('#/fleet');
    await other.context().close();
    expect(browser.errors).toEqual([]);
  });
});
