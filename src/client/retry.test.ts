// The retry policy from a table of cases, and the retrying fetch over a scripted fetch: which answers
// are sent again, after how long, with the body intact, and where it stops.

import { describe, expect, it } from 'vitest';
import { backoffMs, DEFAULT_RETRY, decide, type Outcome, retryAfterMs } from './retry.ts';
import { OutgoingRequest, retryingFetch, SendFailed } from './transport.ts';

const answer = (status: number, code: string | null = null, retryAfter: string | null = null): Outcome => ({
  kind: 'answer',
  status,
  code,
  retryAfter,
});
const network: Outcome = { kind: 'network', error: new TypeError('fetch failed') };
const half = () => 0.5;

describe('decide: what is sent again, and when', () => {
  const cases: [string, Outcome, number, string, ReturnType<typeof decide>][] = [
    [
      'device_timeout, attempt 1',
      answer(400, 'device_timeout'),
      1,
      'PUT',
      { retry: true, delayMs: 100, reason: 'device_timeout' },
    ],
    [
      'device_timeout, attempt 3',
      answer(400, 'device_timeout'),
      3,
      'PUT',
      { retry: true, delayMs: 400, reason: 'device_timeout' },
    ],
    ['device_timeout, attempt 4 = the last', answer(400, 'device_timeout'), 4, 'PUT', { retry: false }],
    [
      'device_offline on POST (nothing reached the meter)',
      answer(400, 'device_offline'),
      1,
      'POST',
      { retry: true, delayMs: 100, reason: 'device_offline' },
    ],
    [
      'properties_unreadable',
      answer(400, 'properties_unreadable'),
      2,
      'GET',
      { retry: true, delayMs: 200, reason: 'properties_unreadable' },
    ],
    ['device_rejected: the meter said no', answer(400, 'device_rejected'), 1, 'PUT', { retry: false }],
    ['device_not_found', answer(400, 'device_not_found'), 1, 'GET', { retry: false }],
    ['validation_error', answer(422, 'validation_error'), 1, 'PUT', { retry: false }],
    ['authentication_error', answer(401, 'authentication_error'), 1, 'GET', { retry: false }],
    [
      '429 with Retry-After: 7 (jitter within baseMs on top)',
      answer(429, 'rate_limit_exceeded', '7'),
      1,
      'POST',
      { retry: true, delayMs: 7100, reason: 'rate_limited' },
    ],
    [
      '429 without Retry-After: backoff',
      answer(429, 'rate_limit_exceeded'),
      2,
      'GET',
      { retry: true, delayMs: 200, reason: 'rate_limited' },
    ],
    [
      '429 with Retry-After over maxRetryAfterMs',
      answer(429, 'rate_limit_exceeded', '61'),
      1,
      'GET',
      { retry: false },
    ],
    ['network error on GET', network, 1, 'GET', { retry: true, delayMs: 100, reason: 'network' }],
    [
      'network error on PUT (idempotent)',
      network,
      1,
      'put',
      { retry: true, delayMs: 100, reason: 'network' },
    ],
    ['network error on POST: it may have been applied', network, 1, 'POST', { retry: false }],
    ['500 internal_error', answer(500, 'internal_error'), 1, 'GET', { retry: false }],
  ];
  for (const [name, outcome, attempt, method, expected] of cases)
    it(name, () => expect(decide(outcome, attempt, method, DEFAULT_RETRY, half, 0)).toEqual(expected));

  it('full jitter: within [0, min(maxMs, baseMs·2^(n−1))), reaching the cap', () => {
    expect(backoffMs(1, DEFAULT_RETRY, () => 0)).toBe(0);
    expect(backoffMs(1, DEFAULT_RETRY, () => 0.999)).toBe(199);
    expect(backoffMs(10, DEFAULT_RETRY, () => 0.999)).toBe(4995);
  });

  it('Retry-After as seconds or an HTTP date; anything else is ignored', () => {
    expect(retryAfterMs('12', 0)).toBe(12_000);
    expect(retryAfterMs('Thu, 01 Jan 1970 00:00:30 GMT', 10_000)).toBe(20_000);
    expect(retryAfterMs('soon', 0)).toBeNull();
    expect(retryAfterMs(null, 0)).toBeNull();
  });
});

function scripted(answers: (() => Response)[]) {
  const seen: { method: string; body: string }[] = [];
  const fetch = async (_url: string, init: RequestInit) => {
    seen.push({ method: init.method ?? 'GET', body: String(init.body ?? '') });
    const next = answers.shift();
    if (!next) throw new Error('no more scripted answers');
    return next();
  };
  return { seen, fetch };
}
const envelope =
  (status: number, code: string, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify({ success: false, error: { code, detail: 'x' } }), { status, headers });
const ok = () => new Response(JSON.stringify({ success: true, data: true }), { status: 200 });
const refused = () => {
  throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
};

describe('retryingFetch', () => {
  const make = (answers: (() => Response)[]) => {
    const s = scripted(answers);
    const sleeps: number[] = [];
    const fetch = retryingFetch({
      policy: DEFAULT_RETRY,
      fetch: s.fetch,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0,
      now: () => 0,
      timeoutMs: 0,
    });
    return { ...s, sleeps, fetch };
  };
  const put = () =>
    new OutgoingRequest('http://x/api/v2/devices/M/relay', { method: 'PUT', body: '{"state":true}' });

  it('sends the same body again after a device_timeout, and returns the success', async () => {
    const t = make([envelope(400, 'device_timeout'), envelope(400, 'device_timeout'), ok]);
    const res = await t.fetch(put());
    expect(res.status).toBe(200);
    expect(t.seen).toEqual(Array(3).fill({ method: 'PUT', body: '{"state":true}' }));
    expect(t.sleeps).toEqual([0, 0]);
  });

  it('waits what Retry-After says after a 429, then succeeds', async () => {
    const t = make([envelope(429, 'rate_limit_exceeded', { 'retry-after': '2' }), ok]);
    expect((await t.fetch(put())).status).toBe(200);
    expect(t.sleeps).toEqual([2000]);
  });

  it('stops after `attempts` and hands back the last answer', async () => {
    const t = make(Array(4).fill(envelope(400, 'device_offline')));
    const res = await t.fetch(put());
    expect(res.status).toBe(400);
    expect(t.seen).toHaveLength(4);
  });

  it('a network error on GET is retried; on POST it is not, and fails as SendFailed', async () => {
    const get = make([refused, ok]);
    expect((await get.fetch(new OutgoingRequest('http://x/api/v2/spaces/'))).status).toBe(200);
    const post = make([refused, ok]);
    const err = await post
      .fetch(new OutgoingRequest('http://x/api/v2/devices/M/wifi', { method: 'POST', body: '{}' }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SendFailed);
    expect((err as SendFailed).attempts).toBe(1);
    expect(post.seen).toHaveLength(1);
  });
});
