// http.request events (issue 9 §1): one per answered request, with the route pattern, status, latency,
// the account when a key was recognised and the error code of an error answer; never the key or the
// admin token, wherever the client put them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { data, type Tenant, tenant, v2Client } from '../helpers/v2.ts';
import { Collected } from './collect.ts';

let t: TestService;
let seen: Collected;
let a: Tenant;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  a = await tenant(t.sim);
  seen = new Collected(t.svc.bus);
});
afterAll(async () => {
  await t.close();
  expect(seen.invalid).toEqual([]);
});

/** The http.request event of the last request to `path` (its path part). */
const last = (path: string) => {
  const list = seen.of('http.request').filter((e) => e.data.url.split('?')[0] === path);
  return list[list.length - 1];
};

describe('http.request', () => {
  it('a v2 GET: method, route pattern, url, status, latency and the account, never the key', async () => {
    const v2 = v2Client(t.svc.httpUrl, a.key);
    data(await v2('GET', `/devices/${a.deviceId}/?x=1`));
    const e = last(`/api/v2/devices/${a.deviceId}/`)!;
    expect(e.data).toMatchObject({
      method: 'GET',
      route: '/api/v2/devices/:device_id/',
      url: `/api/v2/devices/${a.deviceId}/?x=1`,
      status: 200,
      account_id: a.accountId,
    });
    expect(e.data.latency_ms).toBeGreaterThan(0);
    expect(e.data).not.toHaveProperty('code');
    expect(e.account_id).toBe(a.accountId);
    expect(JSON.stringify(e)).not.toContain(a.key);
  });

  it('an error answer carries its code; an unknown key has no account', async () => {
    const v2 = v2Client(t.svc.httpUrl, 'msk_not_a_key');
    const res = await v2('GET', `/devices/${a.deviceId}/`);
    expect(res.status).toBe(401);
    const e = last(`/api/v2/devices/${a.deviceId}/`)!;
    expect(e.data).toMatchObject({ status: 401, code: 'authentication_error', account_id: null });
    expect(JSON.stringify(e)).not.toContain('msk_not_a_key');

    const missing = await fetch(`${t.svc.httpUrl}/nowhere`);
    expect(missing.status).toBe(404);
    expect(last('/nowhere')!.data).toMatchObject({ route: '(no route)', status: 404, code: 'not_found' });

    const bad = await t.sim('POST', '/clock/speed', { speed: -1 });
    expect(bad.status).toBe(422);
    expect(last('/sim/v1/clock/speed')!.data).toMatchObject({ status: 422, code: 'validation_error' });
  });

  it('a key in the path or the query, and the admin token, never reach the event', async () => {
    const key = ok(await t.sim<{ api_key: string }>('POST', `/accounts/${a.accountId}/keys`, {})).api_key;
    ok(await t.sim('DELETE', `/keys/${key}`));
    const revoked = seen.of('http.request').find((e) => e.data.route === '/sim/v1/keys/:api_key')!;
    expect(revoked.data).toMatchObject({ status: 200, url: '/sim/v1/keys/***' });

    await fetch(`${t.svc.httpUrl}/api/v2/spaces/?api_key=${a.key}&page=2`, {
      headers: { 'x-service-api-key': a.key },
    });
    expect(last('/api/v2/spaces/')!.data.url).toBe('/api/v2/spaces/?api_key=***&page=2');

    const all = JSON.stringify(seen.events);
    expect(all).not.toContain(a.key);
    expect(all).not.toContain(key);
    expect(all).not.toContain(ADMIN_TOKEN);
  });

  it('one event per answered request', async () => {
    const before = seen.of('http.request').length;
    await Promise.all(Array.from({ length: 20 }, () => fetch(`${t.svc.httpUrl}/healthz`)));
    await until(() => seen.of('http.request').length === before + 20);
    expect(
      seen
        .of('http.request')
        .slice(before)
        .every((e) => e.data.route === '/healthz'),
    ).toBe(true);
  });
  it('the event views reading themselves are not events; every other read is', async () => {
    const before = seen.of('http.request').length;
    ok(await t.sim('GET', '/events?limit=1'));
    expect((await fetch(`${t.svc.httpUrl}/`)).status).toBe(200);
    expect(seen.of('http.request')).toHaveLength(before);
    ok(await t.sim('GET', '/clock'));
    expect(seen.of('http.request')).toHaveLength(before + 1);
    expect(last('/sim/v1/clock')!.data).toMatchObject({ route: '/sim/v1/clock', status: 200 });
  });
});

async function until(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
