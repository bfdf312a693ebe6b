// Issue 20 item 16 (the console's part): a low-balance hint before a cut-off (₹59.87 with about 5 h
// left at the current draw, spec-decisions 193), a Space column and a search that matches space
// names, and clock buttons disabled while an advance runs (spec-decisions 196).

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
} from '../helpers/service.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

let service: TestService;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ demo: true, db: ':memory:' }), launchBrowser()]);
  const { account_id } = await newAccount(service.sim, 'riverside');
  const space = ok(
    await service.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Riverside Block' }),
  );
  // ₹59.87 at 1.5 kW on EB ₹8.00/kWh (₹12 an hour): about 5 h to its cut-off.
  await provision(service.sim, {
    account_id,
    space_id: space.space_id,
    device_id: 'MTR-R1',
    name: 'Flat R-1',
    mode: 'prepaid',
    balance: 5987,
    eb_tariff: 800,
    active_tariff: 1,
    load_profile: 'constant',
    load_watts: 1500,
  });
  page = await browser.page();
  await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describeBrowser('fleet hints: low balance, space, a busy clock', () => {
  it('₹59.87 at 1.5 kW: the fleet marks it low and its page says about 5 h to cut-off', async () => {
    const row = page.locator('[data-device="MTR-R1"]');
    await expect.poll(() => row.locator('[data-cutoff-hint]').count()).toBe(1);
    expect(await row.locator('[data-balance]').getAttribute('title')).toMatch(
      /^about 4 h \d+ min to cut-off$/,
    );
    // A balance that lasts days has no hint.
    expect(await page.locator('[data-device="MTR-A101"] [data-cutoff-hint]').count()).toBe(0);
    await row.click();
    const hint = page.locator('[data-meter="MTR-R1"] [data-cutoff-hint]');
    await hint.waitFor();
    expect(await hint.textContent()).toMatch(/^about 4 h \d+ min to cut-off at 1\.50 kW$/);
  });

  it('the fleet has a Space column, and the search finds a meter by its space’s name', async () => {
    expect(await page.locator('.fleet .head span').allTextContents()).toContain('Space');
    expect(await page.locator('[data-device="MTR-R1"] [data-space]').textContent()).toBe('Riverside Block');
    expect(await page.locator('[data-device="MTR-A101"] [data-space]').textContent()).toBe('Tower A');
    await page.getByLabel('search').fill('riverside');
    await expect.poll(() => page.locator('[data-device]').count()).toBe(1);
    expect(await page.locator('[data-device]').getAttribute('data-device')).toBe('MTR-R1');
    await page.getByLabel('search').fill('tower b');
    await expect
      .poll(async () =>
        (
          await page
            .locator('[data-device]')
            .evaluateAll((els) => els.map((e) => e.getAttribute('data-device')))
        ).sort(),
      )
      .toEqual(['MTR-B201', 'MTR-B202', 'MTR-B203']);
    await page.getByLabel('search').fill('');
  });

  it('while an advance runs every clock button and the speed field are disabled', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route(/\/sim\/v1\/clock\/advance$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.locator('[data-advance="3600"]').click();
    await page.locator('.clock-msg', { hasText: 'advancing +1 h' }).waitFor();
    for (const s of [3600, 86_400, 604_800, 2_592_000])
      expect(await page.locator(`[data-advance="${s}"]`).evaluate((b) => b.hasAttribute('disabled'))).toBe(
        true,
      );
    expect(await page.getByLabel('clock speed').isDisabled()).toBe(true);
    release();
    await expect
      .poll(() => page.locator('[data-advance="86400"]').evaluate((b) => b.hasAttribute('disabled')))
      .toBe(false);
    expect(browser.errors).toEqual([]);
  });
});
