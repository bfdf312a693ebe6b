// GET /metrics and GET /readyz on a running service (issue 22 §1-2, PM-3..PM-7): the token guard, the
// series the bus moves (a command counted once, a recharge counted once, requests by route template),
// the meters by mode and model, readiness and its 503 naming what is not ready.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
} from '../helpers/service.ts';
import { sampleValue } from './prom-text.ts';

let t: TestService;
let deviceId: string;

const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` }) =>
  fetch(`${t.svc.httpUrl}/metrics`, { headers });

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  const account = await newAccount(t.sim);
  deviceId = (await provision(t.sim, { account_id: account.account_id, model: 'full', balance: 1000 }))
    .device_id;
  await t.svc.world.twins.waitForAvailability(deviceId, true);
});
afterAll(() => t?.close());

describe('GET /metrics [PM-3]', () => {
  it('needs the admin token: as a bearer token or X-Admin-Token; none or a wrong one is 401 in the envelope', async () => {
    const none = await scrape({});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await none.json()).toMatchObject({
      success: false,
      error: { code: 'admin_authentication_error', detail: expect.stringMatching(/bearer/i) },
    });
    expect((await scrape({ authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await scrape({ authorization: `Basic ${ADMIN_TOKEN}` })).status).toBe(401);
    expect((await scrape({ 'x-admin-token': ADMIN_TOKEN })).status).toBe(200);
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('counts one command once, one recharge once, requests by route template, never a device id [PM-2, PM-4]', async () => {
    ok(await t.sim('POST', `/devices/${deviceId}/recharge`, { amount: 500, transaction_id: 'pm-once-1' }));
    expect(await t.svc.world.twins.command(deviceId, { op: 'set_relay', on: false })).toMatchObject({
      ok: true,
    });
    const text = await (await scrape()).text();
    expect(sampleValue(text, 'meterstack_recharges_total', { outcome: 'applied' })).toBe(1);
    expect(sampleValue(text, 'meterstack_commands_total', { op: 'set_relay', outcome: 'sent' })).toBe(1);
    expect(sampleValue(text, 'meterstack_commands_total', { op: 'set_relay', outcome: 'acked' })).toBe(1);
    expect(
      sampleValue(text, 'meterstack_command_latency_seconds_count', { op: 'set_relay', outcome: 'acked' }),
    ).toBe(1);
    expect(
      sampleValue(text, 'meterstack_http_requests_total', {
        method: 'POST',
        route: '/sim/v1/devices/:device_id/recharge',
        status: '200',
      }),
    ).toBe(1);
    expect(text).not.toContain(deviceId);
    // The plain counters of ctx.metrics are there too, and the process's.
    expect(text).toMatch(/^# TYPE meterstack_event_subscriber_errors_total counter$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  });

  it('meters known, online and cut off by mode and model; the virtual clock [PM-4]', async () => {
    const text = await (await scrape()).text();
    expect(sampleValue(text, 'meterstack_meters', { mode: 'prepaid', model: 'full' })).toBe(1);
    expect(sampleValue(text, 'meterstack_meters_online', { mode: 'prepaid', model: 'full' })).toBe(1);
    expect(sampleValue(text, 'meterstack_clock_virtual_seconds')).toBe(
      Math.floor(t.svc.world.clock.now() / 1000),
    );
    expect(sampleValue(text, 'meterstack_clock_speed')).toBe(0);
  });
});

describe('the OpenAPI document [PM-3, PM-7]', () => {
  it('lists /healthz, /readyz (no credentials) and /metrics (the admin token) under `operations`', async () => {
    type Op = { tags: string[]; security: unknown[]; responses: Record<string, unknown> };
    const doc = (await (await fetch(`${t.svc.httpUrl}/openapi.json`)).json()) as {
      paths: Record<string, { get: Op }>;
    };
    for (const path of ['/healthz', '/readyz', '/metrics'])
      expect(doc.paths[path]?.get.tags).toEqual(['operations']);
    expect(doc.paths['/readyz']!.get.security).toEqual([]);
    expect(Object.keys(doc.paths['/readyz']!.get.responses)).toEqual(expect.arrayContaining(['200', '503']));
    expect(doc.paths['/metrics']!.get.security).toEqual([{ adminBearer: [] }, { adminToken: [] }]);
  });
});

describe('GET /readyz [PM-7]', () => {
  it('is 200 with each check ok while the store answers, the broker is connected and the lease held', async () => {
    const res = await fetch(`${t.svc.httpUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      success: true,
      data: { status: 'ready', checks: { store: 'ok', migrations: 'ok', broker: 'ok', world_lease: 'ok' } },
    });
  });

  // Last in this file: the broker goes away for good.
  it('is 503 service_unavailable naming the broker once the service lost it; /healthz stays 200', async () => {
    await t.svc.broker!.close();
    let res = await fetch(`${t.svc.httpUrl}/readyz`);
    // Up to 5 s: the service notices a lost broker at its client's own pace, slower on a loaded machine.
    for (let i = 0; i < 250 && res.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      res = await fetch(`${t.svc.httpUrl}/readyz`);
    }
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      success: false,
      error: { code: 'service_unavailable', detail: expect.stringMatching(/^Not ready: broker \(.*\)\.$/) },
    });
    expect((await fetch(`${t.svc.httpUrl}/healthz`)).status).toBe(200);
  });
});
