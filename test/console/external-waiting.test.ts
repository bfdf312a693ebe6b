// Issue 20 item 5 (the console's part): the connect lines for an external meter say `npx meterstack …`
// (`meterstack` alone is "command not found" in a checkout without a global install) and are on the
// meter's page too; a meter never heard from reads "waiting for its first connection", not mode
// `measurement` and ₹0.00 as if they were readings (spec-decisions 194, 195).

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HandMeter, statePayload } from '../hardening/hand-meter.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { describeBrowser, launchBrowser, openConsole, type TestBrowser } from './browser.ts';

let service: TestService;
let browser: TestBrowser;
let page: Page;
let clients: ServiceClients;
let lines: string[];

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ demo: true, db: ':memory:' }), launchBrowser()]);
  clients = new ServiceClients(service.svc.mqttUrl, ADMIN_TOKEN);
  page = await browser.page();
  await openConsole(page, service.svc.httpUrl, ADMIN_TOKEN);
});

afterAll(async () => {
  await clients?.endAll();
  await browser?.close();
  await service?.close();
});

const meterPage = () => page.locator('[data-meter="EXT-7"]');

describeBrowser('an external meter, before and after its first connection', () => {
  it('provisioned from the console: its lines run with npx, and its page repeats them', async () => {
    await page.getByRole('button', { name: 'Provision' }).click();
    await page.getByLabel('account name').fill('bench');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.locator('form', { hasText: 'Create account' }).locator('code').waitFor();
    await page.getByLabel('device account').selectOption({ label: 'bench (#2)' });
    await page.getByLabel('device id').fill('EXT-7');
    await page.getByLabel('external').check();
    await page.getByRole('button', { name: 'Create device' }).click();
    lines = (await page.locator('[data-commands]').textContent())!.split('\n');
    expect(lines.filter((l) => l.includes('meterstack'))).toHaveLength(2);
    for (const l of lines.filter((l) => l.includes('meterstack')))
      expect(l).toMatch(/^npx meterstack (meter|bridge) /);
    // The device's name links to its page, where the same lines are.
    await page.locator('[data-open-meter]').click();
    await meterPage().waitFor();
    expect(new URL(page.url()).hash).toBe('#/meter/EXT-7');
    expect((await meterPage().locator('[data-commands]').textContent())!.split('\n')).toEqual(lines);
  });

  it('never connected: "waiting for its first connection", no mode or ₹0.00 as if read', async () => {
    expect(await meterPage().locator('[data-waiting]').textContent()).toBe(
      'waiting for its first connection',
    );
    const facts = (await meterPage().locator('.facts').textContent())!;
    expect(facts).not.toContain('measurement');
    expect(facts).not.toContain('₹');
    const row = page.locator('[data-device="EXT-7"]');
    expect(await row.locator('[data-waiting]').textContent()).toBe('waiting for its first connection');
    expect(await row.locator('[data-balance]').count()).toBe(0);
    expect(await row.textContent()).not.toContain('measurement');
  });

  it('once it connects, its page shows what it reported; the lines stay, folded', async () => {
    const password = /--password '([^']+)'/.exec(lines.find((l) => l.includes(' bridge '))!)![1]!;
    await HandMeter.connect(
      clients,
      { username: 'EXT-7', password },
      statePayload(Date.now(), { balance: 4321 }),
    );
    await expect.poll(() => meterPage().locator('[data-waiting]').count(), { timeout: 10_000 }).toBe(0);
    await expect
      .poll(() => meterPage().locator('.facts [data-balance]').textContent(), { timeout: 3000 })
      .toBe('₹43.21');
    expect(await meterPage().locator('.facts').textContent()).toContain('prepaid');
    expect(await meterPage().locator('[data-connect]').getAttribute('open')).toBeNull();
    expect(await page.locator('[data-device="EXT-7"] [data-waiting]').count()).toBe(0);
  });

  it('a meter provisioned elsewhere: its page still has the lines, the password said where to find', async () => {
    await service.sim('POST', '/devices', { account_id: 2, device_id: 'EXT-8', external: true });
    await page.goto(`${service.svc.httpUrl}/#/meter/EXT-8`);
    const cmds = page.locator('[data-meter="EXT-8"] [data-commands]');
    await cmds.waitFor();
    const text = (await cmds.textContent())!;
    expect(text).toContain(
      `npx meterstack bridge --serial /tmp/EXT-8-bridge --broker ${service.svc.mqttUrl} --username EXT-8`,
    );
    expect(text).toContain('<the password shown when it was provisioned>');
    expect(browser.errors).toEqual([]);
  });
});
