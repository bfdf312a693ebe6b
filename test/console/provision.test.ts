// Provisioning from the console: an account (its key works on the v2 API), a space, an external
// device whose command lines name real flags and whose credentials the broker accepts.

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TestClients } from '../../src/broker/test-helpers.ts';
import { BRIDGE_HELP } from '../../src/cli/bridge.ts';
import { METER_HELP } from '../../src/cli/meter.ts';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { describeBrowser, launchBrowser, type TestBrowser } from './browser.ts';

let service: TestService;
let browser: TestBrowser;
let page: Page;
let mqtt: TestClients;

beforeAll(async () => {
  [service, browser] = await Promise.all([startTestService({ db: ':memory:' }), launchBrowser()]);
  mqtt = new TestClients(service.svc.mqttUrl);
  page = await browser.page();
});

afterAll(async () => {
  await mqtt?.endAll();
  await browser?.close();
  await service?.close();
});

/** The flags (`--name`) a command line uses. */
const flagsOf = (line: string) => [...line.matchAll(/\s(--[a-z-]+)/g)].map((m) => m[1]!);

describeBrowser('provisioning from the console', () => {
  it('creates an account, a space and an external device with command lines ready to copy', async () => {
    await page.goto(service.svc.httpUrl);
    await page.getByLabel('admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator('.empty', { hasText: 'No meters yet' }).waitFor();
    await page.getByRole('button', { name: 'Provision' }).click();

    await page.getByLabel('account name').fill('acme');
    await page.getByRole('button', { name: 'Create account' }).click();
    const key = await page.locator('form', { hasText: 'Create account' }).locator('code').textContent();
    const spaces = await fetch(`${service.svc.httpUrl}/api/v2/spaces/`, {
      headers: { 'x-service-api-key': key! },
    });
    expect(spaces.status).toBe(200);

    await page.getByLabel('space account').selectOption({ label: 'acme (#1)' });
    await page.getByLabel('space name').fill('Block C');
    await page.getByRole('button', { name: 'Create space' }).click();
    await page
      .locator('form', { hasText: 'Create space' })
      .locator('.result', { hasText: 'Block C' })
      .waitFor();

    await page.getByLabel('device account').selectOption({ label: 'acme (#1)' });
    await page.getByLabel('device space').selectOption({ label: 'Block C' });
    await page.getByLabel('device id').fill('EXT-42');
    await page.getByLabel('model').selectOption('basic');
    await page.getByLabel('external').check();
    await page.getByRole('button', { name: 'Create device' }).click();
    const lines = (await page.locator('[data-commands]').textContent())!.split('\n');
    const meter = lines.find((l) => l.startsWith('npx meterstack meter '))!;
    const bridge = lines.find((l) => l.startsWith('npx meterstack bridge '))!;
    expect(meter).toContain('--device EXT-42');
    expect(meter).toContain('--model basic');
    expect(bridge).toContain(`--broker ${service.svc.mqttUrl}`);
    expect(bridge).toContain('--username EXT-42');
    // Every flag is one the commands really take.
    for (const flag of flagsOf(meter)) expect(METER_HELP).toContain(flag);
    for (const flag of flagsOf(bridge)) expect(BRIDGE_HELP).toContain(flag);

    // The password shown is the meter's: the broker accepts it.
    const password = /--password '([^']+)'/.exec(bridge)![1]!;
    const client = await mqtt.connect({ clientId: 'EXT-42', username: 'EXT-42', password });
    expect(client.connected).toBe(true);
    await client.endAsync();

    await page.getByRole('button', { name: 'Fleet' }).click();
    const row = page.locator('[data-device="EXT-42"]');
    await row.waitFor();
    expect(await row.textContent()).toContain('external');
    expect(browser.errors).toEqual([]);
  });

  it('shows a refused request in words', async () => {
    await page.getByRole('button', { name: 'Provision' }).click();
    await page.getByLabel('device account').selectOption({ label: 'acme (#1)' });
    await page.getByLabel('device id').fill('EXT-42');
    await page.getByRole('button', { name: 'Create device' }).click();
    await page.locator('[role="alert"]', { hasText: 'conflict' }).waitFor();
  });
});
