// A meter's history by date in the console (issue 23 §2, §3; spec-decisions 179), in real Chromium
// against a real service: a meter whose readings lie before the default window is offered its stored
// range (HX-5) and draws it; "Export CSV" downloads that range from history.csv (HX-1) with the rows
// the chart has; a range picked with the date inputs draws; the chart reads again after a clock jump
// (its range moves with the virtual day); a year at 1d draws (how fast: bench/history.ts).

import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { type Tenant, tenant } from '../helpers/v2.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

const DAY = 86_400_000;
const ist = (ms: number) => new Date(ms + 19_800_000).toISOString().slice(0, 10);

let service: TestService;
let browser: TestBrowser;
let page: Page;
/** A year of hourly history, up to now. */
let year: Tenant;
/** Three days of history, then offline while the clock moved on 10 days: all of it before the window. */
let old: Tenant;
let today: () => Promise<string>;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ speed: 0 }), launchBrowser()]);
  const hourly = { model: 'basic', backfill_period_s: 3600, telemetry_period_s: 3600, load_watts: 600 };
  [year, old] = await Promise.all([
    tenant(service.sim, { ...hourly, backfill_days: 366 }),
    tenant(service.sim, { ...hourly, backfill_days: 3 }),
  ]);
  ok(await service.sim('POST', `/devices/${old.deviceId}/online`, { online: false }));
  ok(await service.sim('POST', '/clock/advance', { seconds: 10 * 86_400 }));
  today = async () => ist(ok(await service.sim<{ now_ms: number }>('GET', '/clock')).now_ms);
  page = await browser.page();
  await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

const card = () => page.locator('[data-history]');
const points = () => card().locator('.chart').getAttribute('data-points').then(Number);

async function openMeter(id: string): Promise<void> {
  await page.goto(`${service.svc.httpUrl}/#/meter/${id}`);
  await page.locator(`[data-history="${id}"]`).waitFor();
}

describeBrowser('history by date in the console (issue 23 §2)', () => {
  it('[HX-5] data outside the default window: the stored range is offered, and drawn when taken', async () => {
    await openMeter(old.deviceId);
    const offer = card().locator('[data-history-offer]');
    await expect
      .poll(() => offer.textContent(), { timeout: 10_000 })
      .toMatch(/this meter's readings lie \d{1,2} \w{3} \d{4}/);
    expect(await points()).toBe(0);
    await offer.getByRole('button').click();
    await expect.poll(points, { timeout: 10_000 }).toBeGreaterThan(3 * 24 - 2);
    expect(await card().locator('[data-history-stored]').getAttribute('aria-pressed')).toBe('true');
    expect(await offer.count()).toBe(0);
    expect(await card().locator('.uplot canvas').count()).toBeGreaterThan(0);
  });

  it('[HX-1] Export CSV downloads the range shown, units in the header, a row per point drawn', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card().getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const from = await card().getByLabel('history from').inputValue();
    const to = await card().getByLabel('history to').inputValue();
    expect(download.suggestedFilename()).toBe(`${old.deviceId}_${from}_${to}_60m.csv`);
    const text = readFileSync((await download.path())!, 'utf8');
    const [header, ...rows] = text.trimEnd().split('\r\n');
    expect(header).toBe('timestamp (IST),energy (kWh),active_power (W),voltage (V)');
    expect(rows).toHaveLength(await points());
    await expect
      .poll(() => card().locator('[data-history-export]').textContent())
      .toContain(download.suggestedFilename());
  });

  // How fast the year draws (≤ 300 ms) is measured by bench/history.ts against bare uPlot, not here.
  it('a range picked with the date inputs draws; a year at 1d draws, each read marked when drawn', async () => {
    await openMeter(year.deviceId);
    const now = await today();
    await card().getByRole('button', { name: '1d' }).click();
    await card()
      .getByLabel('history from')
      .fill(ist(Date.parse(`${now}T00:00:00Z`) - 365 * DAY));
    await expect.poll(points, { timeout: 10_000 }).toBeGreaterThanOrEqual(366);
    expect(await card().locator('.uplot canvas').count()).toBeGreaterThan(0);
    // The mark DevTools and the bench read: one per read drawn, leaving to 60m and back.
    const measures = () =>
      page.evaluate(() => performance.getEntriesByName('meterstack:history').map((m) => m.duration));
    await page.evaluate(() => performance.clearMeasures('meterstack:history'));
    await card().getByRole('button', { name: '60m' }).click();
    // At least one more per read (a re-read still in flight at clearMeasures may land too).
    await expect.poll(async () => (await measures()).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    const afterHour = (await measures()).length;
    await card().getByRole('button', { name: '1d' }).click();
    await expect
      .poll(async () => (await measures()).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(afterHour + 1);
    expect(await points()).toBeGreaterThanOrEqual(366);
  });

  it('the chart reads again after a clock jump: "today" moves with the virtual day', async () => {
    await card().getByRole('button', { name: '60m' }).click();
    await card().getByRole('button', { name: 'today' }).click();
    const before = await today();
    await expect.poll(() => card().getByLabel('history to').inputValue()).toBe(before);
    await expect.poll(points, { timeout: 10_000 }).toBeGreaterThan(0);
    ok(await service.sim('POST', '/clock/advance', { seconds: 2 * 86_400 }));
    const after = await today();
    await expect.poll(() => card().getByLabel('history to').inputValue(), { timeout: 10_000 }).toBe(after);
    await expect.poll(() => card().getByLabel('history from').inputValue()).toBe(after);
    await expect.poll(points, { timeout: 10_000 }).toBeGreaterThan(0);
  });

  it('a picked range that runs into the future reads again after a jump: the new hours are drawn', async () => {
    const now = await today();
    const plus3 = ist(Date.parse(`${now}T00:00:00Z`) + 3 * DAY);
    await card().getByLabel('history to').fill(plus3);
    await card().getByLabel('history from').fill(now);
    await expect.poll(() => card().getByLabel('history to').inputValue()).toBe(plus3);
    await expect.poll(points, { timeout: 10_000 }).toBeGreaterThan(0);
    const drawn = await points();
    ok(await service.sim('POST', '/clock/advance', { seconds: 86_400 }));
    await expect.poll(points, { timeout: 10_000 }).toBe(drawn + 24);
    expect(await card().getByLabel('history from').inputValue()).toBe(now);
    expect(await card().getByLabel('history to').inputValue()).toBe(plus3);
    // A from past the to takes the to along: never an upside-down range.
    const plus5 = ist(Date.parse(`${now}T00:00:00Z`) + 5 * DAY);
    await card().getByLabel('history from').fill(plus5);
    await expect.poll(() => card().getByLabel('history to').inputValue()).toBe(plus5);
    expect(await card().locator('p.bad').count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});
