// CORS in real Chromium (issue 10 item 2): a page served from another origin (a tiny HTTP server
// of its own on another ephemeral port) calls the v2 API with fetch and X-Service-API-Key, as a
// browser app would: it reads a device, switches its relay and reads RateLimit-Remaining. The same
// page against a service whose --cors list does not name its origin gets the browser's CORS failure.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeBrowser, launchBrowser, type TestBrowser } from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { meterView, type Tenant, tenant } from '../helpers/v2.ts';

const LIMIT = 100;

// The browser app: its own script, reading where to go from its query string.
const APP = `<!doctype html>
<title>a browser app</title>
<script type="module">
  const q = new URLSearchParams(location.search);
  const api = q.get('api');
  const key = { 'X-Service-API-Key': q.get('key') };
  const device = q.get('device');
  const result = {};
  const read = async (res) => ({
    status: res.status,
    body: await res.json(),
    remaining: res.headers.get('RateLimit-Remaining'),
    limit: res.headers.get('RateLimit-Limit'),
  });
  try {
    result.device = await read(await fetch(api + '/api/v2/devices/' + device + '/', { headers: key }));
    result.relay = await read(
      await fetch(api + '/api/v2/devices/' + device + '/relay', {
        method: 'PUT',
        headers: { ...key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ state: q.get('state') === 'true' }),
      }),
    );
  } catch (err) {
    result.error = err.name + ': ' + err.message;
  }
  window.result = result;
</script>`;

interface AppResult {
  device?: {
    status: number;
    body: { data: { device_id: string } };
    remaining: string | null;
    limit: string | null;
  };
  relay?: { status: number; body: { data: unknown }; remaining: string | null };
  error?: string;
}

let appServer: Server;
let appOrigin: string;
let browser: TestBrowser;
const services: TestService[] = [];

async function service(cors?: string[]): Promise<{ t: TestService; a: Tenant }> {
  const t = await startTestService({ db: ':memory:', rateLimit: LIMIT, ...(cors ? { cors } : {}) });
  services.push(t);
  return { t, a: await tenant(t.sim) };
}

/** Opens the app on its own origin against `t`, asking it to set the relay to `state`. */
async function runApp(page: Page, t: TestService, a: Tenant, state: boolean): Promise<AppResult> {
  const q = new URLSearchParams({ api: t.svc.httpUrl, key: a.key, device: a.deviceId, state: String(state) });
  await page.goto(`${appOrigin}/?${q}`);
  await page.waitForFunction(() => (globalThis as unknown as { result?: unknown }).result !== undefined);
  return page.evaluate(() => (globalThis as unknown as { result: AppResult }).result);
}

beforeAll(async () => {
  appServer = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(APP);
  });
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all(services.map((t) => t.close()));
  await new Promise((resolve) => appServer?.close(resolve));
});

describeBrowser('a browser app on another origin', () => {
  it('reads a device, switches its relay and reads RateLimit-Remaining (localhost allowed by default)', async () => {
    const { t, a } = await service();
    const before = await meterView(t.sim, a.deviceId);
    const page = await browser.page();
    const result = await runApp(page, t, a, !before.relay_commanded);
    expect(result.error).toBeUndefined();
    expect(result.device).toMatchObject({
      status: 200,
      body: { data: { device_id: a.deviceId } },
      remaining: String(LIMIT - 1),
      limit: String(LIMIT),
    });
    expect(result.relay).toMatchObject({ status: 200, body: { data: true }, remaining: String(LIMIT - 2) });
    await expect
      .poll(async () => (await meterView(t.sim, a.deviceId)).relay_commanded)
      .toBe(!before.relay_commanded);
    expect(browser.errors).toEqual([]);
    await page.context().close();
  });

  it('on an origin --cors does not list, gets a CORS failure and changes nothing', async () => {
    const { t, a } = await service(['http://localhost:1']);
    const before = await meterView(t.sim, a.deviceId);
    const page = await browser.page();
    const console: string[] = [];
    page.on('console', (m) => console.push(m.text()));
    const result = await runApp(page, t, a, !before.relay_commanded);
    expect(result.device).toBeUndefined();
    expect(result.error).toBe('TypeError: Failed to fetch');
    expect(console.join('\n')).toMatch(/blocked by CORS policy.*No 'Access-Control-Allow-Origin' header/);
    expect((await meterView(t.sim, a.deviceId)).relay_commanded).toBe(before.relay_commanded);
    await page.context().close();
  });
});
