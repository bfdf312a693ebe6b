// Issue 20 item 14: after a +1 d jump the journal read `18:30:01 meter.cutoff` above `10:00:09
// clock.advanced`, with `from=1795667409002`: times carry their date when the day is not today's,
// hover says how long ago, and no value is raw epoch ms (spec-decisions 192).

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

const IST_DAY = new Intl.DateTimeFormat('en-IN', {
  timeZone: 'Asia/Kolkata',
  day: '2-digit',
  month: 'short',
});

describeBrowser('the journal’s times', () => {
  it('after +1 d, the day before’s events show their date, today’s their time, and no raw epoch ms', async () => {
    const before = Date.now();
    await page.locator('[data-advance="86400"]').click();
    await page.getByRole('button', { name: 'Events' }).click();
    const advanced = page.locator('li[data-type="clock.advanced"]').first();
    await advanced.waitFor();
    // The jump itself: how far, from when, to when, in IST; not `from=1795667409002`.
    const line = (await advanced.textContent())!;
    expect(line).toContain('+1 d');
    expect(line).toContain('IST');
    expect(line).not.toMatch(/\d{12,}/);
    // An event of the day before the jump reads with its date; the jump (today) with its time only.
    const yesterday = IST_DAY.format(before);
    const times = await page.locator('.events time').allTextContents();
    expect(times.some((t) => t.startsWith(yesterday))).toBe(true);
    expect(await advanced.locator('time').textContent()).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(await advanced.locator('time').getAttribute('title')).toMatch(/ago$/);
    // Nowhere in the journal a raw epoch ms.
    expect(await page.locator('.events').textContent()).not.toMatch(/\b1\d{12}\b/);
    expect(browser.errors).toEqual([]);
  });

  it('a meter’s events after the jump carry their date too', async () => {
    await page.goto(`${service.svc.httpUrl}/#/meter/MTR-B201`);
    const times = page.locator('[data-meter="MTR-B201"] .events time');
    await times.first().waitFor();
    expect((await times.allTextContents()).some((t) => /^\d\d \w{3} \d\d:\d\d:\d\d$/.test(t))).toBe(true);
  });
});
