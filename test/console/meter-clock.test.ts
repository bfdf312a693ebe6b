// [MC-11.4] The console says which clock a meter lives on, in real Chromium against a real service: an
// external meter is tagged "external · wall clock" in the fleet and its page reads "wall clock, mapped
// to virtual (+6 h)" after `advance 6h`, with "last seen" seconds ago once it sends again; a virtual
// meter's page reads "virtual (the world’s clock)".

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HandMeter, sample, statePayload } from '../hardening/hand-meter.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { type Tenant, tenant } from '../helpers/v2.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

let service: TestService;
let browser: TestBrowser;
let page: Page;
let clients: ServiceClients;
let ext: Tenant;
let virt: Tenant;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ speed: 1 }), launchBrowser()]);
  clients = new ServiceClients(service.svc.mqttUrl, ADMIN_TOKEN);
  ext = await tenant(service.sim, { external: true, model: 'basic' });
  virt = await tenant(service.sim, { model: 'basic' });
  const meter = await HandMeter.connect(clients, ext.mqtt, statePayload(Date.now()));
  ok(await service.sim('POST', '/clock/advance', { seconds: 6 * 3600 }));
  // Its next sample, stamped with wall time as a real meter does, after the jump.
  await meter.publish('telemetry', { v: 1, samples: [sample(Date.now(), 10)] });
  page = await browser.page();
}, 60_000);

afterAll(async () => {
  await clients?.endAll();
  await browser?.close();
  await service?.close();
});

describeBrowser('which clock a meter lives on [MC-11.4]', () => {
  it('the fleet tags the external meter; its page names the wall clock and the shift; last seen is seconds ago', async () => {
    await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
    const row = page.locator(`[data-device="${ext.deviceId}"]`);
    await expect.poll(() => row.textContent()).toContain('external · wall clock');
    await row.click();
    const clock = page.locator('[data-clock-kind]');
    await expect.poll(() => clock.getAttribute('data-clock-kind')).toBe('wall');
    await expect.poll(() => clock.textContent()).toBe('wall clock, mapped to virtual (+6 h)');
    const facts = page.locator('dl.facts');
    await expect.poll(() => facts.textContent(), { timeout: 15_000 }).toMatch(/Last seen\d+ s ago/);
  });

  it('a virtual meter’s page names the world’s clock', async () => {
    await page.getByRole('button', { name: 'Fleet' }).click();
    await page.locator(`[data-device="${virt.deviceId}"]`).click();
    await expect
      .poll(() => page.locator('[data-clock-kind]').textContent())
      .toBe('virtual (the world’s clock)');
  });
});
