// The web console in real Chromium against a real service (demo world): what a person does, clicked
// through, each outcome checked through the public APIs too (issue 9 §4).

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { openSse } from '../helpers/sse.ts';
import { describeBrowser, launchBrowser, type TestBrowser } from './browser.ts';

const API_KEY = 'msk_test';
let tmp: ReturnType<typeof tempDir>;
let service: TestService;
let browser: TestBrowser;
let page: Page;

async function v2Metrics(id: string): Promise<{ relay_state: boolean; balance: number }> {
  const res = await fetch(`${service.svc.httpUrl}/api/v2/devices/${id}/metrics`, {
    headers: { 'x-service-api-key': API_KEY },
  });
  const body = (await res.json()) as { data: { relay_state: boolean; balance: number } };
  return body.data;
}

const row = (id: string) => page.locator(`[data-device="${id}"]`);

beforeAll(async () => {
  tmp = tempDir('meterstack-console-');
  [service, browser] = await Promise.all([
    startTestService({ demo: true, db: `${tmp.dir}/console.db` }),
    launchBrowser(),
  ]);
  page = await browser.page();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
  tmp?.remove();
});

describeBrowser('the web console', () => {
  it('serves the page and its modules from this server only (no CDN)', async () => {
    const external: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(service.svc.httpUrl)) external.push(r.url());
    });
    const res = await page.goto(service.svc.httpUrl);
    expect(res?.status()).toBe(200);
    await page.getByLabel('admin token').waitFor();
    expect(external).toEqual([]);
    // Only the files the page imports are served from node_modules.
    const pkg = await fetch(`${service.svc.httpUrl}/console/vendor/preact/package.json`);
    expect(pkg.status).toBe(404);
  });

  it('refuses a wrong admin token with a clear message, then opens on the right one', async () => {
    await page.getByLabel('admin token').fill('not-the-token');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect
      .poll(() => page.locator('[data-token-error]').textContent())
      .toContain('admin token was refused');
    await page.getByLabel('admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open' }).click();
    await row('MTR-B201').waitFor();
    expect(await page.locator('[data-device]').count()).toBe(8);
    expect(await row('MTR-B201').textContent()).toContain('₹');
    // The token is kept for the session: a reload does not ask again.
    await page.reload();
    await row('MTR-B201').waitFor();
  });

  it('switches a relay from the console and the v2 API agrees', async () => {
    await row('MTR-A102').click();
    await page.locator('[data-meter="MTR-A102"]').waitFor();
    await page.locator('[data-action="relay-off"]').click();
    await expect.poll(() => page.locator('[data-status]').textContent()).toContain('relay state updated');
    expect((await v2Metrics('MTR-A102')).relay_state).toBe(false);
    await expect.poll(() => row('MTR-A102').locator('[data-relay]').getAttribute('data-relay')).toBe('false');
    // Read live from the meter through the v2 API: it says so too.
    await page.locator('[data-action="read-metrics"]').click();
    await expect.poll(() => page.locator('[data-metrics]').textContent()).toContain('relay open');
    await page.locator('[data-action="relay-on"]').click();
    await expect.poll(async () => (await v2Metrics('MTR-A102')).relay_state).toBe(true);
  });

  it('shows a prepaid meter cut off within 1 s, and a recharge from the console restores it', async () => {
    // MTR-B201: ₹59.98 at 1.5 kW and ₹8/kWh, about 5 h of supply. Advance an hour at a time.
    let cutAt = 0;
    for (let hour = 0; hour < 12 && !cutAt; hour++) {
      await page.locator('[data-advance="3600"]').click();
      await expect.poll(() => page.locator('[data-advance="3600"]').isEnabled()).toBe(true);
      if ((await v2Metrics('MTR-B201')).relay_state === false) cutAt = Date.now();
    }
    expect(cutAt).toBeGreaterThan(0);
    await row('MTR-B201').locator('.badge', { hasText: 'cut off' }).waitFor({ timeout: 1000 });
    expect(Date.now() - cutAt).toBeLessThan(1000);

    await row('MTR-B201').click();
    await page.locator('[data-meter="MTR-B201"]').waitFor();
    await page.getByLabel('recharge amount').fill('500');
    await page.locator('[data-action="recharge"]').click();
    await expect.poll(() => page.locator('[data-status]').textContent()).toContain('recharge applied');
    const after = await v2Metrics('MTR-B201');
    expect(after.relay_state).toBe(true);
    expect(after.balance).toBeGreaterThan(40_000);
    await expect.poll(() => row('MTR-B201').locator('[data-relay]').getAttribute('data-relay')).toBe('true');
    // The cut-off badge is gone (a low-balance badge may show for a moment: a sample taken before
    // the recharge can arrive after it).
    expect(await row('MTR-B201').locator('.badge', { hasText: 'cut off' }).count()).toBe(0);
  });

  it('shows an API error in words', async () => {
    await page.getByLabel('recharge amount').fill('0');
    await page.locator('[data-action="recharge"]').click();
    await expect.poll(() => page.locator('[data-status]').textContent()).toContain('validation_error');
    await expect.poll(() => page.locator('[data-status]').textContent()).toContain('amount');
  });

  it('shows an event in the journal view and on the SSE stream, and a meter its MQTT traffic', async () => {
    const sse = await openSse(service.svc.httpUrl, '/sim/v1/events/stream', { 'x-admin-token': ADMIN_TOKEN });
    try {
      await page.getByRole('button', { name: 'Events' }).click();
      await page.locator('[data-stream="live"]').waitFor({ timeout: 3000 });
      // What the emitters (another part of the service) send: a command to a meter and a log line.
      const sent = service.svc.bus.emit(
        'command.sent',
        { id: 'cmd-test-1', op: 'set_relay' },
        { deviceId: 'MTR-A102' },
      );
      service.svc.bus.emit('log', { level: 'info', msg: 'hello from the console test' });
      await page.locator('.events li', { hasText: 'hello from the console test' }).waitFor({ timeout: 1000 });
      await page
        .locator('.events li[data-type="command.sent"]', { hasText: 'cmd-test-1' })
        .waitFor({ timeout: 1000 });
      await sse.until((frames) => frames.some((f) => f.id === String(sent!.seq)), 2000);

      // Filtered by family: only the command stays.
      await page.getByLabel('event family').selectOption('command');
      expect(await page.locator('.events li[data-type="log"]').count()).toBe(0);
      await page.getByLabel('event family').selectOption('');

      await page.getByRole('button', { name: 'Fleet' }).click();
      await row('MTR-A102').click();
      const traffic = page.locator('.card', { hasText: 'MQTT traffic' });
      await traffic
        .locator('li[data-type="command.sent"]', { hasText: 'cmd-test-1' })
        .waitFor({ timeout: 2000 });
    } finally {
      sse.close();
    }
  });

  it('shows a banner while the service is down and recovers when it is back on the same port', async () => {
    const port = Number(new URL(service.svc.httpUrl).port);
    await service.svc.close();
    await page.locator('[data-unreachable]').waitFor({ timeout: 5000 });
    expect(await page.locator('[data-unreachable]').textContent()).toContain('cannot be reached');
    service = await startTestService({ demo: true, db: `${tmp.dir}/console.db`, httpPort: port });
    await page.locator('[data-unreachable]').waitFor({ state: 'detached', timeout: 5000 });
    await row('MTR-B201').waitFor();
    // The stream is followed again: an event of the new service reaches the journal view.
    await page.getByRole('button', { name: 'Events' }).click();
    await page.locator('[data-stream="live"]').waitFor({ timeout: 5000 });
    service.svc.bus.emit('log', { level: 'info', msg: 'back again' });
    await page.locator('.events li', { hasText: 'back again' }).waitFor({ timeout: 1000 });
    expect(browser.errors).toEqual([]);
  });

  it('asks for the token again when the service no longer takes it', async () => {
    const port = Number(new URL(service.svc.httpUrl).port);
    await service.svc.close();
    service = await startTestService({
      demo: true,
      db: `${tmp.dir}/console.db`,
      httpPort: port,
      adminToken: 'another-token',
    });
    await expect
      .poll(() => page.locator('[data-token-error]').textContent(), { timeout: 8000 })
      .toContain('no longer accepted');
    await page.getByLabel('admin token').fill('another-token');
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('button', { name: 'Fleet' }).click();
    await row('MTR-B201').waitFor();
    expect(browser.errors).toEqual([]);
  });
});
