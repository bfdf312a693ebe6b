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
    const res = await service.sim<{ devices: { device_id: string; space_id: number | null }[] }>(
      'GET',
      '/fleet',
    );
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
    await page.getByLabel('space filter').selectOption('');
    await page.locator('.rows').evaluate((el) => {
      el.scrollTop = 0;
    });
    expect(browser.errors).toEqual([]);
  });

  it('takes a telemetry summary of all 10,000 meters and a relay change to the screen within 1 s', async () => {
    const bus = service.svc.bus;
    const now = service.svc.world.clock.now();
    const meters = Array.from({ length: N }, (_, i) => ({
      device_id: `BIG-${String(i).padStart(5, '0')}`,
      ts: now,
      active_power: 1234 + i,
      energy: 1,
      voltage: 230,
      balance: 100,
    }));
    const t0 = Date.now();
    bus.emit('telemetry.summary', { interval_ms: 1000, messages: N, samples: N, meters });
    await page.locator('[data-device="BIG-00000"]', { hasText: '1.23 kW' }).waitFor({ timeout: 1000 });
    console.log(`telemetry.summary of ${N} meters on screen after ${Date.now() - t0} ms`);

    // A state change of one meter: from the event on the bus to the attribute on screen, 20 times.
    const latencies: number[] = [];
    const relay = page.locator('[data-device="BIG-00003"] [data-relay]');
    for (let i = 0; i < 20; i++) {
      const effective = i % 2 === 0;
      const start = performance.now();
      bus.emit(
        'meter.relay',
        { commanded: effective, effective, was: { commanded: !effective, effective: !effective } },
        { deviceId: 'BIG-00003' },
      );
      await expect.poll(() => relay.getAttribute('data-relay'), { interval: 5 }).toBe(String(effective));
      latencies.push(performance.now() - start);
    }
    latencies.sort((a, b) => a - b);
    const p95 = latencies[Math.ceil(latencies.length * 0.95) - 1]!;
    console.log(
      `meter.relay to screen, ${N} meters: p50 ${latencies[10]!.toFixed(0)} ms, p95 ${p95.toFixed(0)} ms`,
    );
    expect(p95).toBeLessThan(1000);
  });
});
