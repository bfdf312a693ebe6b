// CORS over real HTTP (issue 10 item 2, spec-decisions 69): preflights and actual requests from
// allowed and refused origins under the default (localhost), `*`, `off` and a list; preflights spend
// no rate limit and are no http.request events; `serve --cors` and METERSTACK_CORS.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseServeConfig, SERVE_HELP } from '../../src/cli/config.ts';
import type { CorsOrigins } from '../../src/http/cors-policy.ts';
import { Collected } from '../events/collect.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { meterView, type Tenant, tenant } from '../helpers/v2.ts';

const LIMIT = 5;

interface Answer {
  status: number;
  headers: Headers;
  body: { success?: boolean; error?: { code: string; detail: string } } | null;
}

async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : JSON.parse(text) };
}

/** A browser's preflight for a call with the API key and a JSON body. */
function preflight(base: string, path: string, origin: string, method = 'PUT'): Promise<Answer> {
  return call(base, 'OPTIONS', path, {
    origin,
    'access-control-request-method': method,
    'access-control-request-headers': 'content-type,x-service-api-key',
  });
}

const list = (h: string | null) => (h ?? '').split(',').map((s) => s.trim().toLowerCase());

function expectAllowedPreflight(a: Answer, origin: string): void {
  expect(a.status, JSON.stringify(a.body)).toBe(204);
  expect(a.headers.get('access-control-allow-origin')).toBe(origin);
  expect(list(a.headers.get('access-control-allow-headers'))).toEqual(
    expect.arrayContaining(['x-service-api-key', 'x-admin-token', 'content-type']),
  );
  expect(list(a.headers.get('access-control-allow-methods'))).toEqual(
    expect.arrayContaining(['get', 'post', 'put', 'delete']),
  );
  expect(a.headers.get('access-control-max-age')).toBe('600');
}

function expectRefused(a: Answer, origin: string): void {
  expect(a.status).toBe(403);
  expect(a.body?.success).toBe(false);
  expect(a.body?.error?.code).toBe('cors_origin_not_allowed');
  expect(a.body?.error?.detail).toContain(`Origin ${origin} may not call this service`);
  expect(a.body?.error?.detail).toContain('--cors');
  expect(a.headers.get('access-control-allow-origin')).toBeNull();
}

const services: TestService[] = [];
async function start(cors: CorsOrigins | undefined, rateLimit = 0): Promise<TestService> {
  const t = await startTestService({ db: ':memory:', rateLimit, ...(cors === undefined ? {} : { cors }) });
  services.push(t);
  return t;
}
afterAll(async () => {
  await Promise.all(services.map((t) => t.close()));
});

describe('the default: localhost origins on any port', () => {
  let t: TestService;
  let base: string;
  let a: Tenant;
  beforeAll(async () => {
    t = await start(undefined, LIMIT);
    base = t.svc.httpUrl;
    a = await tenant(t.sim);
  });

  it('a preflight for X-Service-API-Key is 204 under /api/v2, /sim/v1 and any path, never 404', async () => {
    const origins = ['http://localhost:5173', 'http://localhost', 'http://127.0.0.1:1', 'http://[::1]:8081'];
    const paths = [
      '/api/v2/spaces/',
      '/api/v2/spaces',
      `/api/v2/devices/${a.deviceId}/relay`,
      `/api/v2/devices/${a.deviceId}/metrics/history?property_id=energy`,
      '/sim/v1/devices',
      '/api/v2/no/such/route',
    ];
    for (const origin of origins) {
      for (const path of paths) {
        const answer = await preflight(base, path, origin);
        expectAllowedPreflight(answer, origin);
        expect(list(answer.headers.get('vary'))).toContain('origin');
      }
    }
  });

  it('an actual request is answered with Access-Control-Allow-Origin and exposes every rate-limit header the limiter sends', async () => {
    const origin = 'http://127.0.0.1:5173';
    const b = await tenant(t.sim);
    const answers: Answer[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      answers.push(
        await call(base, 'GET', `/api/v2/devices/${b.deviceId}/`, { origin, 'x-service-api-key': b.key }),
      );
    }
    expect(answers.map((r) => r.status)).toEqual([...Array(LIMIT).fill(200), 429]);
    for (const r of answers) {
      expect(r.headers.get('access-control-allow-origin')).toBe(origin);
      // A page reads only what is exposed: each rate-limit header sent must be in the list.
      const exposed = list(r.headers.get('access-control-expose-headers'));
      const sent = [...r.headers.keys()].filter((h) => h.startsWith('ratelimit-') || h === 'retry-after');
      expect(sent.length).toBeGreaterThanOrEqual(r.status === 429 ? 5 : 4);
      expect(exposed).toEqual(expect.arrayContaining(sent));
    }
    expect(answers[LIMIT]!.body?.error?.code).toBe('rate_limit_exceeded');
    // Errors too reach the page: a wrong key, an unknown route.
    const unauth = await call(base, 'GET', '/api/v2/spaces/', { origin, 'x-service-api-key': 'nope' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('access-control-allow-origin')).toBe(origin);
    const missing = await call(base, 'GET', '/api/v2/nothing', { origin });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('preflights spend no rate limit and are no http.request events; a refused one is one', async () => {
    const c = await tenant(t.sim);
    const seen = new Collected(t.svc.bus);
    try {
      for (let i = 0; i < LIMIT * 2; i++) {
        expectAllowedPreflight(
          await preflight(base, `/api/v2/devices/${c.deviceId}/`, 'http://localhost:3000', 'GET'),
          'http://localhost:3000',
        );
      }
      expectRefused(await preflight(base, '/api/v2/spaces/', 'https://evil.example'), 'https://evil.example');
      const after = await call(base, 'GET', `/api/v2/devices/${c.deviceId}/`, {
        origin: 'http://localhost:3000',
        'x-service-api-key': c.key,
      });
      expect(after.status).toBe(200);
      expect(after.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
    } finally {
      seen.stop();
    }
    const requests = seen.of('http.request').map((e) => e.data);
    expect(requests.filter((e) => e.method === 'OPTIONS')).toEqual([
      expect.objectContaining({ status: 403, code: 'cors_origin_not_allowed', url: '/api/v2/spaces/' }),
    ]);
    expect(requests.filter((e) => e.method === 'GET')).toHaveLength(1);
    expect(seen.invalid).toEqual([]);
  });

  it('another origin is refused, preflight and actual request, in the envelope, and changes nothing', async () => {
    for (const origin of [
      'https://evil.example',
      'http://localhost.evil.example:3000',
      'http://127.0.0.2:5173',
      'null',
    ]) {
      expectRefused(await preflight(base, `/api/v2/devices/${a.deviceId}/relay`, origin), origin);
    }
    const before = (await meterView(t.sim, a.deviceId)).relay_commanded;
    const put = await call(
      base,
      'PUT',
      `/api/v2/devices/${a.deviceId}/relay`,
      { origin: 'https://evil.example', 'x-service-api-key': a.key },
      { state: !before },
    );
    expectRefused(put, 'https://evil.example');
    // A simple request (no preflight in a browser) is refused too, and /sim/v1 alike.
    expectRefused(
      await call(base, 'GET', '/healthz', { origin: 'https://evil.example' }),
      'https://evil.example',
    );
    expectRefused(
      await call(
        base,
        'POST',
        '/sim/v1/accounts',
        { origin: 'https://evil.example', 'x-admin-token': 'test-admin-token' },
        { name: 'x' },
      ),
      'https://evil.example',
    );
    expect((await meterView(t.sim, a.deviceId)).relay_commanded).toBe(before);
  });

  it('requests without Origin, and OPTIONS without one, are answered as before', async () => {
    const plain = await call(base, 'GET', `/api/v2/devices/${a.deviceId}/`, { 'x-service-api-key': a.key });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const options = await call(base, 'OPTIONS', '/api/v2/spaces/', {});
    expect(options.status).toBe(204);
  });

  it('an event stream from an allowed origin carries Access-Control-Allow-Origin', async () => {
    const ctl = new AbortController();
    const res = await fetch(`${base}/sim/v1/events/stream`, {
      headers: { origin: 'http://localhost:5173', 'x-admin-token': 'test-admin-token' },
      signal: ctl.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    ctl.abort();
  });
});

describe('--cors *, off and a list', () => {
  it('*: any origin, answered with Access-Control-Allow-Origin: *', async () => {
    const t = await start('*');
    const answer = await preflight(t.svc.httpUrl, '/api/v2/spaces/', 'https://anything.example', 'GET');
    expectAllowedPreflight(answer, '*');
    const get = await call(t.svc.httpUrl, 'GET', '/healthz', { origin: 'https://anything.example' });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
  });

  it("off: no other origin, localhost included; the service's own pages still work", async () => {
    const t = await start('off');
    const base = t.svc.httpUrl;
    expectRefused(await preflight(base, '/api/v2/spaces/', 'http://localhost:5173'), 'http://localhost:5173');
    // The console at / POSTs with its own origin in Origin.
    const own = await call(
      base,
      'POST',
      '/sim/v1/accounts',
      { origin: base, 'x-admin-token': 'test-admin-token' },
      { name: 'c' },
    );
    expect(own.status).toBe(200);
  });

  it('a list: exactly those origins; localhost only when listed', async () => {
    const t = await start(['https://app.example.com']);
    const base = t.svc.httpUrl;
    expectAllowedPreflight(
      await preflight(base, '/api/v2/spaces/', 'https://app.example.com'),
      'https://app.example.com',
    );
    for (const origin of [
      'https://app.example.com:8443',
      'http://app.example.com',
      'http://127.0.0.1:5173',
    ]) {
      expectRefused(await preflight(base, '/api/v2/spaces/', origin), origin);
    }
  });

  it('a bad origin in ServiceConfig.cors is a TypeError before anything starts', async () => {
    await expect(startTestService({ db: ':memory:', cors: ['app.example.com'] })).rejects.toThrow(TypeError);
  });
});

describe('serve --cors / METERSTACK_CORS', () => {
  function cors(argv: string[], env: Record<string, string> = {}) {
    const parsed = parseServeConfig(argv, env);
    if (parsed.help) throw new Error('help');
    return parsed.config.cors;
  }

  it('defaults to localhost (unset), takes the flag over the variable, and is in the help', () => {
    expect(cors([])).toBeUndefined();
    expect(cors(['--cors', '*'])).toBe('*');
    expect(cors([], { METERSTACK_CORS: 'off' })).toBe('off');
    expect(cors(['--cors=https://a.example,localhost'], { METERSTACK_CORS: 'off' })).toEqual([
      'https://a.example',
      'localhost',
    ]);
    expect(SERVE_HELP).toMatch(/--cors ORIGINS .*METERSTACK_CORS/);
  });

  it('refuses a bad value, naming the flag, the variable and the item', () => {
    expect(() => cors(['--cors', 'https://a.example/app'])).toThrow(ConfigError);
    expect(() => cors([], { METERSTACK_CORS: 'a.example' })).toThrow(
      /--cors \(METERSTACK_CORS\): 'a\.example' is not an origin/,
    );
    expect(() => cors(['--cors', 'off,https://a.example'])).toThrow(/stand alone/);
  });
});
