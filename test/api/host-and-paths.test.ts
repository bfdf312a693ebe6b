// A running service over raw sockets (the bytes a hostile client or a rebinding page sends, which
// fetch would normalize): [SEC-5] a Host it does not answer to is 421 host_not_allowed in the envelope
// before anything else runs, and logged; [SEC-6] a path the file server refuses (`..`, `%2e%2e`, `//`,
// a backslash) is 404 not_found like any unrouted path, discloses nothing, and is logged.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeConfig } from '../../src/cli/config.ts';
import { rawConnect } from '../hardening/raw-socket.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** One request as written, `Connection: close`; `host` null: no Host line. */
async function raw(
  base: string,
  path: string,
  host: string | null,
  extra = '',
  version = '1.1',
): Promise<RawAnswer> {
  const c = await rawConnect(base);
  c.socket.write(
    `GET ${path} HTTP/${version}\r\n${host === null ? '' : `Host: ${host}\r\n`}${extra}Connection: close\r\n\r\n`,
  );
  await c.closed;
  const text = c.received();
  const split = text.indexOf('\r\n\r\n');
  return {
    status: Number(text.slice(9, 12)),
    headers: text.slice(0, split).toLowerCase(),
    body: text.slice(split + 4),
  };
}

async function journaled(t: TestService): Promise<{ url: string; status: number; code?: string }[]> {
  const res = await t.sim<{
    events: { type: string; data: { url: string; status: number; code?: string } }[];
  }>('GET', '/events?type=http.request&limit=1000');
  return res.body.data.events.map((e) => e.data);
}

describe('a running service, bound to 127.0.0.1 with --allowed-hosts meters.example.com', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ allowedHosts: ['meters.example.com'] });
  });
  afterAll(async () => t?.close());

  it('[SEC-5] answers loopback names, --host and --allowed-hosts on any port, and HTTP/1.0 without Host', async () => {
    const port = new URL(t.svc.httpUrl).port;
    for (const host of [
      'localhost',
      `localhost:${port}`,
      'LOCALHOST.',
      '127.0.0.1',
      '[::1]:1',
      'meters.example.com:443',
    ])
      expect((await raw(t.svc.httpUrl, '/healthz', host)).status, host).toBe(200);
    expect((await raw(t.svc.httpUrl, '/healthz', null, '', '1.0')).status).toBe(200);
  });

  it('[SEC-5] an HTTP/1.1 request without Host is 400 bad_request in the envelope', async () => {
    const a = await raw(t.svc.httpUrl, '/healthz', null);
    expect(a.status).toBe(400);
    expect(JSON.parse(a.body)).toMatchObject({ success: false, error: { code: 'bad_request' } });
  });

  it('[SEC-5] refuses any other Host with 421 host_not_allowed, before CORS and auth, and logs it', async () => {
    const port = new URL(t.svc.httpUrl).port;
    const refused = [
      'evil.example',
      `evil.example:${port}`,
      'evil.example.',
      'localhost.evil.example',
      '10.0.0.1',
      '',
    ];
    for (const host of refused) {
      // A rebinding page's request: its own origin, the demo key; nothing but the refusal comes back.
      const a = await raw(
        t.svc.httpUrl,
        '/api/v2/spaces/',
        host,
        `Origin: http://${host}\r\nX-Service-API-Key: msk_test\r\n`,
      );
      expect(a.status, host).toBe(421);
      expect(JSON.parse(a.body)).toMatchObject({ success: false, error: { code: 'host_not_allowed' } });
      expect(a.body).toContain('--allowed-hosts');
      expect(a.headers).toContain('x-content-type-options: nosniff');
    }
    const logged = (await journaled(t)).filter((e) => e.code === 'host_not_allowed');
    expect(logged).toHaveLength(refused.length);
    expect(logged.every((e) => e.status === 421 && e.url === '/api/v2/spaces/')).toBe(true);
  });

  it("[SEC-6] '..', %2e%2e, %252e, backslash, '//' under /console/ and /docs/: 404 not_found, nothing disclosed, logged", async () => {
    const paths = [
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/%2E%2E/package.json',
      '/console/.%2e/package.json',
      '/console/%252e%252e/package.json',
      '/console/..%2fpackage.json',
      '/console/..%5cpackage.json',
      '/console/..\\package.json',
      '/console//app.js',
      '/console/./app.js',
      '/console/vendor/preact/../../../package.json',
      '/console/vendor/preact/%2e%2e/%2e%2e/%2e%2e/package.json',
      '/console/vendor/htm/..%2f..%2fpackage.json',
      '/docs/static/../../package.json',
      '/docs/static/%2e%2e/%2e%2e/package.json',
      '//console/app.js',
    ];
    for (const path of paths) {
      const a = await raw(t.svc.httpUrl, path, 'localhost');
      expect(a.status, path).toBe(404);
      expect(JSON.parse(a.body), path).toMatchObject({ success: false, error: { code: 'not_found' } });
      expect(a.body).not.toContain('"dependencies"');
    }
    const logged = await journaled(t);
    for (const path of paths)
      expect(
        logged.some((e) => e.url === path && e.status === 404 && e.code === 'not_found'),
        path,
      ).toBe(true);
    // and the files themselves are still served
    expect((await raw(t.svc.httpUrl, '/console/app.js', 'localhost')).status).toBe(200);
  });
});

describe('[SEC-5] --allowed-hosts and METERSTACK_ALLOWED_HOSTS', () => {
  const allowed = (argv: string[], env: Record<string, string> = {}) => {
    const r = parseServeConfig(['--db=:memory:', ...argv], env);
    return r.help ? undefined : r.config.allowedHosts;
  };
  it('take names, the flag over the variable, * for any; a URL is a clear error', () => {
    expect(allowed([])).toBeUndefined();
    expect(allowed(['--allowed-hosts=a.example,10.0.0.2'])).toEqual(['a.example', '10.0.0.2']);
    expect(allowed(['--allowed-hosts=b.example'], { METERSTACK_ALLOWED_HOSTS: 'a.example' })).toEqual([
      'b.example',
    ]);
    expect(allowed([], { METERSTACK_ALLOWED_HOSTS: '*' })).toBe('*');
    expect(() => allowed(['--allowed-hosts=https://a.example'])).toThrow(
      /--allowed-hosts \(METERSTACK_ALLOWED_HOSTS\): 'https:\/\/a.example' is not a host name/,
    );
  });
});
