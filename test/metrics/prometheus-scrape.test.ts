// Debian's real Prometheus scrapes a running service with its admin token as bearer token (issue 22 §1,
// PM-3, PM-4), and PromQL over its HTTP API finds what the service did: the meters online, one command
// counted once, one recharge counted once. Skipped with a message when /usr/bin/prometheus is absent;
// under CI=true it fails instead.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hasPrometheus,
  PROMETHEUS,
  type RunningPrometheus,
  skipWithoutPrometheus,
  startPrometheus,
} from '../helpers/prometheus.ts';
import {
  ADMIN_TOKEN,
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
} from '../helpers/service.ts';

if (!hasPrometheus)
  console.warn(
    `prometheus-scrape: skipped, ${PROMETHEUS} is not installed (apt-get install prometheus; under CI=true this fails)`,
  );

describe.skipIf(skipWithoutPrometheus)('a real Prometheus scraping GET /metrics [PM-3, PM-4]', () => {
  let t: TestService;
  let prom: RunningPrometheus;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestService({ speed: 0 });
    // Prometheus starts (a second or two) while the service does what it will count.
    const starting = startPrometheus(new URL(t.svc.httpUrl).host, ADMIN_TOKEN);
    starting.catch(() => undefined);
    const account = await newAccount(t.sim);
    for (const balance of [1000, 2000, 3000])
      ids.push(
        (await provision(t.sim, { account_id: account.account_id, model: 'basic', balance })).device_id,
      );
    for (const id of ids) await t.svc.world.twins.waitForAvailability(id, true);
    // One meter unplugged: online is 2 of 3.
    ok(await t.sim('POST', `/devices/${ids[2]}/online`, { online: false }));
    await t.svc.world.twins.waitForAvailability(ids[2]!, false);
    ok(await t.sim('POST', `/devices/${ids[0]}/recharge`, { amount: 700, transaction_id: 'prom-1' }));
    // The same transaction again: a duplicate, not a second recharge.
    ok(await t.sim('POST', `/devices/${ids[0]}/recharge`, { amount: 700, transaction_id: 'prom-1' }));
    expect(await t.svc.world.twins.command(ids[1]!, { op: 'set_relay', on: false })).toMatchObject({
      ok: true,
    });
    prom = await starting;
    await prom.waitForScrape(Date.now());
  }, 30_000);
  afterAll(async () => {
    await prom?.stop();
    await t?.close();
  });

  // Each query reads the newest sample of the last minute (last_over_time, max_over_time for `up`): on a
  // loaded machine one scrape can time out (1 s) and mark the series stale for an instant query, which
  // would fail here though every earlier scrape counted right.
  const one = async (promql: string) => {
    const r = await prom.query(promql);
    expect(r, `${promql}: ${JSON.stringify(r)}`).toHaveLength(1);
    return r[0]!.value;
  };

  it('meters known and online by mode and model', async () => {
    expect(await one('sum(last_over_time(meterstack_meters{model="basic"}[1m]))')).toBe(3);
    expect(await one('sum(last_over_time(meterstack_meters_online{model="basic"}[1m]))')).toBe(2);
  });

  it('one command counted once, with its latency', async () => {
    expect(await one('last_over_time(meterstack_commands_total{op="set_relay",outcome="sent"}[1m])')).toBe(1);
    expect(await one('last_over_time(meterstack_commands_total{op="set_relay",outcome="acked"}[1m])')).toBe(
      1,
    );
    expect(
      await one(
        'last_over_time(meterstack_command_latency_seconds_count{op="set_relay",outcome="acked"}[1m])',
      ),
    ).toBe(1);
  });

  it('one recharge counted once, its repeat as a duplicate', async () => {
    expect(await one('last_over_time(meterstack_recharges_total{outcome="applied"}[1m])')).toBe(1);
    expect(await one('last_over_time(meterstack_recharges_total{outcome="duplicate"}[1m])')).toBe(1);
  });

  it('the scrape itself: up, with HTTP requests by route template', async () => {
    expect(await one('max_over_time(up{job="meterstack"}[1m])')).toBe(1);
    expect(
      await one(
        'last_over_time(meterstack_http_requests_total{method="POST",route="/sim/v1/devices/:device_id/recharge",status="200"}[1m])',
      ),
    ).toBe(2);
  });
});
