// The rate limit (spec §8: 100 requests per minute, all requests; behaviour beyond it is in
// docs/spec-decisions.md): per API key across every endpoint; the 101st request in the minute is 429
// rate_limit_exceeded in the envelope with Retry-After and the RateLimit headers; another account's
// key is unaffected; requests that fail authentication spend no one's quota.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, startTestService, type TestService } from '../helpers/service.ts';
import {
  failed,
  HISTORY_QS,
  type Method,
  type Tenant,
  tenant,
  type V2,
  type V2Response,
  v2Client,
} from '../helpers/v2.ts';

const LIMIT = 100;

let t: TestService;
let v2: V2;

beforeAll(async () => {
  t = await startTestService({ speed: 0, rateLimit: LIMIT });
  v2 = v2Client(t.svc.httpUrl);
});
afterAll(() => t.close());

/** A mix of reads and writes over most endpoints, cycled. */
function mixed(a: Tenant): [Method, string, unknown?][] {
  const d = `/devices/${a.deviceId}`;
  return [
    ['GET', '/spaces/'],
    ['GET', `/spaces/${a.spaceId}/`],
    ['GET', `${d}/`],
    ['GET', `${d}/metrics`],
    ['PUT', `${d}/relay`, { state: true }],
    ['PUT', `${d}/mode`, { mode: 'prepaid' }],
    ['PUT', `${d}/tariffs/eb`, { tariff: 800 }],
    ['GET', `${d}/metrics/history?${HISTORY_QS}`],
    ['GET', `${d}/wifi`],
    ['PUT', `${d}/payments/gateway`, { state: false }],
    // A request that fails validation still counts: it was authenticated.
    ['PUT', `${d}/relay`, { state: 'yes' }],
  ];
}

async function spend(a: Tenant, n: number): Promise<V2Response[]> {
  const calls = mixed(a);
  const out: V2Response[] = [];
  for (let i = 0; i < n; i++) {
    const [method, path, body] = calls[i % calls.length]!;
    out.push(await v2(method, path, body, a.key));
  }
  return out;
}

describe('100 requests per minute per API key', () => {
  it('the 101st request is 429 rate_limit_exceeded with Retry-After and RateLimit headers; another key is unaffected', async () => {
    const [a, b] = await Promise.all([tenant(t.sim), tenant(t.sim)]);
    const first = await spend(a, LIMIT);
    expect(first.filter((r) => r.status === 429)).toEqual([]);
    expect(first.map((r) => r.status).filter((s) => s !== 200)).toEqual(
      Array(Math.floor(LIMIT / 11)).fill(422),
    );
    // Every counted response says where the caller stands.
    expect(first[0]!.headers.get('ratelimit-limit')).toBe(String(LIMIT));
    expect(first[0]!.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
    expect(first[LIMIT - 1]!.headers.get('ratelimit-remaining')).toBe('0');
    expect(first[0]!.headers.get('ratelimit-policy')).toBe(`${LIMIT};w=60`);

    const over = await v2('GET', `/devices/${a.deviceId}/`, undefined, a.key);
    const detail = failed(over, 429, 'rate_limit_exceeded');
    expect(detail).toMatch(/100 requests per minute/);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60).toBe(true);
    expect(over.headers.get('ratelimit-limit')).toBe(String(LIMIT));
    expect(over.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(over.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(Number(over.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
    expect(over.headers.get('ratelimit-policy')).toBe(`${LIMIT};w=60`);
    // Every endpoint is limited, writes included: the meter is not touched.
    failed(
      await v2('PUT', `/devices/${a.deviceId}/relay`, { state: false }, a.key),
      429,
      'rate_limit_exceeded',
    );
    expect(
      (await t.sim<{ relay_commanded: boolean }>('GET', `/devices/${a.deviceId}`)).body.data.relay_commanded,
    ).toBe(true);

    // Another account's key has its own quota.
    const other = await v2('GET', `/devices/${b.deviceId}/`, undefined, b.key);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
    // A request without a valid key is still told about its key, not about a quota.
    failed(await v2('GET', '/spaces/', undefined, null), 401, 'authentication_error');
  });

  it('requests that fail authentication are never counted: past 100 of them, still 401, never 429', async () => {
    const a = await tenant(t.sim);
    const revoked = ok(await t.sim<{ api_key: string }>('POST', `/accounts/${a.accountId}/keys`, {})).api_key;
    ok(await t.sim('DELETE', `/keys/${revoked}`));
    for (const key of [null, 'msk_unknown', revoked]) {
      for (let i = 0; i < LIMIT + 5; i++) {
        const res = await v2('GET', `/devices/${a.deviceId}/`, undefined, key);
        if (res.status !== 401) failed(res, 401, 'authentication_error');
      }
    }
    // Nor did they spend the account's quota.
    const res = await spend(a, LIMIT);
    expect(res.filter((r) => r.status === 429)).toEqual([]);
    expect(res.at(-1)!.headers.get('ratelimit-remaining')).toBe('0');
  });
});
