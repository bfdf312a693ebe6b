// Swagger UI at /docs as a newcomer uses it (issue 20 item 10): "Try it out" starts from a demo meter
// that exists, and what was typed into Authorize survives a reload.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PATH } from '../../src/api/v2/examples.ts';
import { describeBrowser, launchBrowser, type TestBrowser } from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ speed: 0, demo: true });
});
afterAll(() => t.close());

interface Parameter {
  in: string;
  name: string;
  schema: { example?: unknown };
}

describe('the OpenAPI document', () => {
  it('gives every device_id, space_id and account_id path parameter the demo world as its example', async () => {
    const doc = (await (await fetch(`${t.svc.httpUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
    };
    const seen: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const p of op.parameters ?? []) {
          if (p.in !== 'path' || !(p.name in EXAMPLE_PATH)) continue;
          seen.push(p.name);
          expect(p.schema.example, `${method} ${path} ${p.name}`).toBe(
            EXAMPLE_PATH[p.name as keyof typeof EXAMPLE_PATH],
          );
        }
      }
    }
    expect(new Set(seen)).toEqual(new Set(['device_id', 'space_id', 'account_id']));
  });

  it('the examples name the demo world as a fresh start makes it', async () => {
    const call = (method: string, path: string, headers: Record<string, string>) =>
      fetch(`${t.svc.httpUrl}${path}`, {
        method,
        headers: { ...headers, 'content-type': 'application/json' },
        body: method === 'POST' ? '{}' : undefined,
      }).then((r) => r.status);
    const key = { 'x-service-api-key': 'msk_test' };
    expect(await call('GET', `/api/v2/devices/${EXAMPLE_PATH.device_id}/`, key)).toBe(200);
    expect(await call('GET', `/api/v2/spaces/${EXAMPLE_PATH.space_id}/`, key)).toBe(200);
    const admin = { 'x-admin-token': 'test-admin-token' };
    expect(await call('POST', `/sim/v1/accounts/${EXAMPLE_PATH.account_id}/keys`, admin)).toBe(200);
  });
});

describeBrowser('Swagger UI in Chromium', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  it('keeps the API key over a reload, and "Try it out" on a device answers 200 for the demo meter', async () => {
    const page = await browser.page();
    await page.goto(`${t.svc.httpUrl}/docs`);
    await page.locator('button.authorize').first().click();
    const apiKeyForm = page.locator('.auth-container').filter({ hasText: 'X-Service-API-Key' });
    await apiKeyForm.locator('input').fill('msk_test');
    await apiKeyForm.locator('button.authorize').click();
    await page.locator('.close-modal').click();

    await page.reload();
    await page.locator('.opblock').first().waitFor();
    // The header's button shows a closed lock while a scheme is authorized.
    await page.locator('.auth-wrapper button.authorize.locked').waitFor();

    const op = page.locator('#operations-devices-getDevice');
    await op.locator('.opblock-summary').click();
    await op.locator('button.try-out__btn').click();
    const deviceId = op.locator('tr[data-param-name="device_id"] input');
    expect(await deviceId.inputValue()).toBe(EXAMPLE_PATH.device_id);
    await op.locator('button.execute').click();
    // 200, not 401: the key typed before the reload went with the request.
    const status = op.locator('.live-responses-table tbody .response-col_status');
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    await page.close();
    expect(browser.errors).toEqual([]);
  });
});
