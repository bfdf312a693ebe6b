// [SEC-4] Every answer carries the security headers: the console, the API, Swagger UI at /docs, error
// answers, 404s and the answers given before any hook (a malformed URL, a refused Host, headers too
// large). In real Chromium the console and Swagger UI work under the Content-Security-Policy with no
// violation, and the policy is really enforced: an inline script a page did not ship is refused.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { rawConnect } from '../hardening/raw-socket.ts';
import { ADMIN_TOKEN, startTestService, type TestService } from '../helpers/service.ts';
import { describeBrowser, launchBrowser, type TestBrowser } from './browser.ts';

const EXPECTED = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ demo: true });
});
afterAll(async () => t?.close());

function checkHeaders(what: string, get: (name: string) => string | null): void {
  for (const [name, value] of Object.entries(EXPECTED)) expect(get(name), `${what}: ${name}`).toBe(value);
  const csp = get('content-security-policy') ?? '';
  // Pages load from this origin only; data answers (/api/, /sim/) may load nothing at all.
  const data = / \/(api|sim)\//.test(what);
  expect(csp, what).toContain(data ? "default-src 'none'" : "default-src 'self'");
  expect(csp, what).toContain("frame-ancestors 'none'");
  expect(csp, what).not.toContain('unsafe-inline');
  expect(csp, what).not.toContain('unsafe-eval');
}

it('[SEC-4] on the console, the API, /docs, errors, 404s and edge answers', async () => {
  const base = t.svc.httpUrl;
  const requests: [string, RequestInit?][] = [
    ['/'],
    ['/console/app.js'],
    ['/console/vendor/preact/preact.mjs'],
    ['/docs'],
    ['/docs/static/swagger-ui.css'],
    ['/openapi.json'],
    ['/healthz'],
    ['/api/v2/spaces/'], // 401
    ['/api/v2/spaces/', { headers: { 'x-service-api-key': 'msk_test' } }],
    ['/sim/v1/fleet', { headers: { 'x-admin-token': ADMIN_TOKEN } }],
    ['/no/such/route'], // 404
    ['/console/missing.js'], // the file server's 404
    ['/%zz'], // 400 malformed_url, before any hook
    ['/api/v2/spaces/', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } }], // 403 cors
    ['/sim/v1/accounts', { method: 'POST', headers: { 'x-admin-token': ADMIN_TOKEN }, body: 'x' }], // 415
  ];
  for (const [path, init] of requests) {
    const res = await fetch(`${base}${path}`, init);
    checkHeaders(`${init?.method ?? 'GET'} ${path} ${res.status}`, (n) => res.headers.get(n));
  }
  // Answers written on the socket before fastify has a request: headers too large (431).
  const c = await rawConnect(base);
  c.socket.write(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  await c.closed;
  const head = c.received().split('\r\n\r\n')[0]!.toLowerCase();
  expect(head).toMatch(/^http\/1.1 431/);
  expect(head).toContain('x-content-type-options: nosniff');
  expect(head).toContain("frame-ancestors 'none'");
});

describeBrowser('[SEC-4] under the CSP in Chromium', () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  it('the console opens and shows the fleet, with no CSP violation', async () => {
    const page = await browser.page();
    await page.goto(t.svc.httpUrl);
    await page.getByLabel('admin token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator('[data-device="MTR-A101"]').waitFor();
    await page.close();
    expect(browser.errors).toEqual([]);
  });

  it('Swagger UI at /docs renders the operations and opens one, with no CSP violation', async () => {
    const page = await browser.page();
    await page.goto(`${t.svc.httpUrl}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    await page.locator('.opblock-summary').first().click();
    await page.locator('.opblock-body').first().waitFor();
    await page.close();
    expect(browser.errors).toEqual([]);
  });

  it('the policy is enforced: an inline script the page did not ship is refused', async () => {
    const page = await browser.page();
    await page.goto(t.svc.httpUrl);
    const ran = await page.evaluate(`(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__injected = true;';
      document.head.append(s);
      return window.__injected === true;
    })()`);
    expect(ran).toBe(false);
    await expect.poll(() => browser.errors.some((e) => e.includes('Content Security Policy'))).toBe(true);
    browser.errors.length = 0;
    await page.close();
  });
});
