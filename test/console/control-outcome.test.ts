// Issue 20 item 12: the outcome of a control appears where the person clicked, not seven groups
// below, and the control flips in place when the service says yes (spec-decisions 191).

import type { Locator, Page } from 'playwright-core';
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
  await page.goto(`${service.svc.httpUrl}/#/meter/MTR-A101`);
  await page.locator('[data-meter="MTR-A101"] [data-action="relay-off"]').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

/** Vertical distance in px between the bottom of `a` and the top of `b`. */
async function gap(a: Locator, b: Locator): Promise<number> {
  const [ra, rb] = [(await a.boundingBox())!, (await b.boundingBox())!];
  return rb.y - (ra.y + ra.height);
}

describeBrowser('a control’s outcome, where it was clicked', () => {
  it('a relay toggle shows its outcome next to the button, and the toggle flips', async () => {
    const off = page.locator('[data-action="relay-off"]');
    const on = page.locator('[data-action="relay-on"]');
    expect(await on.getAttribute('aria-pressed')).toBe('true');
    await off.click();
    const status = page.locator('[data-status]');
    await expect.poll(() => status.textContent()).toContain('Relay off: relay state updated');
    // In the relay's own group, right under its buttons: within a line or two, not screens away.
    expect(await status.getAttribute('data-status')).toBe('relay');
    expect(await page.locator('fieldset', { hasText: 'Relay' }).locator('[data-status]').count()).toBe(1);
    expect(await gap(off, status)).toBeLessThan(40);
    expect(await status.isVisible()).toBe(true);
    // Flipped at once: the pressed side is "Open (off)", before and after the meter's report.
    expect(await off.getAttribute('aria-pressed')).toBe('true');
    expect(await on.getAttribute('aria-pressed')).toBe('false');
    await expect
      .poll(() => page.locator('[data-device="MTR-A101"] [data-relay]').getAttribute('data-relay'))
      .toBe('false');
    expect(await off.getAttribute('aria-pressed')).toBe('true');
  });

  it('a refused control says so beside it, in its group; the other groups stay quiet', async () => {
    await page.getByLabel('recharge amount').fill('0');
    await page.locator('[data-action="recharge"]').click();
    const status = page.locator('[data-status]');
    await expect.poll(() => status.getAttribute('data-status')).toBe('recharge');
    await expect.poll(() => status.textContent()).toContain('failed');
    expect(await status.getAttribute('class')).toContain('bad');
    expect(await gap(page.locator('[data-action="recharge"]'), status)).toBeLessThan(40);
    expect(await page.locator('fieldset', { hasText: 'Relay' }).locator('[data-status]').count()).toBe(0);
  });

  it('the mode select keeps the mode the service accepted; its outcome is under it', async () => {
    await page.getByLabel('mode', { exact: true }).selectOption('postpaid');
    const status = page.locator('[data-status]');
    await expect.poll(() => status.textContent()).toMatch(/^Mode: /);
    expect(await gap(page.getByLabel('mode', { exact: true }), status)).toBeLessThan(40);
    expect(await page.getByLabel('mode', { exact: true }).inputValue()).toBe('postpaid');
    await expect.poll(() => page.locator('[data-device="MTR-A101"]').textContent()).toContain('postpaid');
    expect(browser.errors).toEqual([]);
  });
});
