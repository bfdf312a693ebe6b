// Issue 12 §4 through the real service: /sim/v1 prepaid policies (validation, nothing half-applied,
// 404/409), and what the v2 API and the event bus show during emergency credit and friendly hours.

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Collected } from '../events/collect.ts';
import {
  ok,
  provision,
  type SimResponse,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';
import { data, type Metrics, type Tenant, tenant, v2Client } from '../helpers/v2.ts';

let t: TestService;
let seen: Collected;

beforeAll(async () => {
  t = await startTestService({ speed: 0 }); // only /clock/advance moves time: balances are exact
  seen = new Collected(t.svc.bus);
});
afterAll(async () => {
  await t.close();
  expect(seen.invalid).toEqual([]);
});

type PolicyState = {
  prepaid_policy: unknown;
  low_balance: number | null;
  balance: number;
  relay_state: boolean;
};
const path = (a: Tenant | string) => `/devices/${typeof a === 'string' ? a : a.deviceId}/prepaid-policy`;
const advance = async (seconds: number) => ok(await t.sim('POST', '/clock/advance', { seconds }));
const nowMs = async () => ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
const metrics = async (a: Tenant) =>
  data(await v2Client(t.svc.httpUrl, a.key)<Metrics>('GET', `/devices/${a.deviceId}/metrics`));
const details = (res: SimResponse) => {
  expect(res.status).toBe(422);
  expect(res.body.error?.code).toBe('validation_error');
  return res.body.error?.detail as { loc: string[]; msg: string }[];
};
/** 'HH:MM' in IST of an instant. */
const istHhmm = (ms: number) => new Date(ms + 19_800_000).toISOString().slice(11, 16);

describe('PUT /sim/v1/devices/{id}/prepaid-policy: impossible policies', () => {
  const rows: [string, unknown, string[]][] = [
    ['ascending thresholds', { low_balance_warnings: [0, 5000] }, ['low_balance_warnings', '1']],
    ['a threshold beyond 1e8', { low_balance_warnings: [100_000_001] }, ['low_balance_warnings', '0']],
    [
      '65 thresholds',
      { low_balance_warnings: Array.from({ length: 65 }, (_, i) => -i) },
      ['low_balance_warnings'],
    ],
    ['negative emergency credit', { emergency_credit: -1 }, ['emergency_credit']],
    ['emergency credit beyond 1e7', { emergency_credit: 10_000_001 }, ['emergency_credit']],
    ['fractional emergency credit', { emergency_credit: 1.5 }, ['emergency_credit']],
    ['from 24:00', { friendly_hours: { from: '24:00', to: '06:00' } }, ['friendly_hours', 'from']],
    ['an empty window', { friendly_hours: { from: '06:00', to: '06:00' } }, ['friendly_hours', 'to']],
    [
      '30 February',
      { friendly_hours: { from: '22:00', to: '06:00', holidays: ['2026-02-30'] } },
      ['friendly_hours', 'holidays', '0'],
    ],
    ['an unknown field', { weekdays: [1] }, ['body']],
  ];
  let a: Tenant;
  beforeAll(async () => {
    a = await tenant(t.sim, { balance: 100 });
    ok(await t.sim('PUT', path(a), { emergency_credit: 50 }));
  });

  it.each(rows)('%s → validation_error at its field, the policy unchanged', async (_name, body, loc) => {
    const items = details(await t.sim('PUT', path(a), { emergency_credit: 70, ...(body as object) }));
    expect(items.map((i) => i.loc)).toContainEqual(loc);
    expect(ok(await t.sim<PolicyState>('GET', path(a))).prepaid_policy).toMatchObject({
      emergency_credit: 50,
    });
  });

  it('unknown meter → 404; an external device → 409', async () => {
    expect((await t.sim('PUT', path('NOPE-1'), {})).status).toBe(404);
    const ext = await provision(t.sim, { account_id: a.accountId, external: true });
    const res = await t.sim('PUT', path(ext.device_id), { emergency_credit: 5 });
    expect([res.status, res.body.error?.code]).toEqual([409, 'conflict']);
  });

  it('POST /devices: an external device with a policy → validation_error, nothing created', async () => {
    const res = await t.sim('POST', '/devices', {
      account_id: a.accountId,
      device_id: 'EXT-POLICY',
      external: true,
      prepaid_policy: { emergency_credit: 5 },
    });
    expect(details(res).map((i) => i.loc)).toEqual([['prepaid_policy']]);
    expect((await t.sim('GET', '/devices/EXT-POLICY')).status).toBe(404);
  });
});

describe('emergency credit and warnings, seen through v2 and the event bus', () => {
  it('below zero the relay stays on, balance negative; cut off at -emergency_credit; DELETE → none', async () => {
    // 10 paise at 800 paise/kWh and 1 kW last 45 s; 100 paise of emergency credit 450 s more.
    const a = await tenant(t.sim, {
      mode: 'prepaid',
      balance: 10,
      load_watts: 1000,
      prepaid_policy: { low_balance_warnings: [5, 0], emergency_credit: 100 },
    });
    const view = ok(await t.sim<PolicyState>('GET', `/devices/${a.deviceId}`));
    expect(view).toMatchObject({
      prepaid_policy: { low_balance_warnings: [5, 0], emergency_credit: 100, friendly_hours: null },
      low_balance: null,
    });
    await advance(100);
    expect(await metrics(a)).toMatchObject({ relay_state: true, balance: -13, active_power: 1000 });
    const warnings = seen.of('meter.low_balance', a.deviceId).map((e) => e.data);
    expect(warnings).toEqual([
      { threshold: 5, balance: 4 },
      { threshold: 0, balance: -1 },
    ]);
    expect(ok(await t.sim<PolicyState>('GET', path(a)))).toMatchObject({ low_balance: 0, relay_state: true });
    await advance(500);
    expect(await metrics(a)).toMatchObject({ relay_state: false, balance: -101, active_power: 0 });
    await seen.waitFor('meter.cutoff', (e) => e.device_id === a.deviceId && e.data.balance === -101);
    const ledger = ok(await t.sim<{ ledger: { agrees: boolean } }>('GET', `/devices/${a.deviceId}`)).ledger;
    expect(ledger.agrees).toBe(true); // [M-15] emergency credit used is just a negative balance
    const cleared = ok(await t.sim<PolicyState>('DELETE', path(a)));
    expect(cleared).toMatchObject({ prepaid_policy: null, low_balance: null, relay_state: false });
  });
});

describe('friendly hours, seen through v2', () => {
  it('no cut-off inside the window; cut off at its end, billed exactly up to it', async () => {
    const start = await nowMs();
    const minute = Math.floor(start / 60_000) * 60_000;
    const end = minute + 30 * 60_000; // the window ends 30 min after this minute
    const a = await tenant(t.sim, {
      mode: 'prepaid',
      balance: 1,
      load_watts: 1000,
      prepaid_policy: { friendly_hours: { from: istHhmm(minute - 60 * 60_000), to: istHhmm(end) } },
    });
    await advance(20 * 60);
    expect(await metrics(a)).toMatchObject({ relay_state: true, active_power: 1000 });
    expect((await metrics(a)).balance).toBeLessThan(0);
    await advance(20 * 60);
    expect(await metrics(a)).toMatchObject({ relay_state: false, active_power: 0 });
    const units = BigInt(
      ok(await t.sim<{ balance_exact: { units: string } }>('GET', `/devices/${a.deviceId}`)).balance_exact
        .units,
    );
    expect(units).toBe(3_600_000_000_000n - 800n * 1_000_000n * BigInt(end - start));
    await seen.waitFor('meter.cutoff', (e) => e.device_id === a.deviceId);
  });
});

describe('a policy across a restart', () => {
  it('is kept in the meter snapshot and still applies: no cut-off until -emergency_credit', async () => {
    const tmp = tempDir();
    const db = join(tmp.dir, 'policy.db');
    const a = await startTestService({ db, speed: 0 });
    const m = await tenant(a.sim, { balance: 10, load_watts: 1000 });
    ok(await a.sim('PUT', path(m), { emergency_credit: 100, low_balance_warnings: [0] }));
    await a.svc.close();
    const b = await startTestService({ db, speed: 0 });
    try {
      const after = ok(await b.sim<PolicyState>('GET', path(m)));
      expect(after.prepaid_policy).toEqual({
        low_balance_warnings: [0],
        emergency_credit: 100,
        friendly_hours: null,
      });
      ok(await b.sim('POST', '/clock/advance', { seconds: 100 })); // 10 paise last 45 s
      expect(ok(await b.sim<PolicyState>('GET', path(m)))).toMatchObject({
        relay_state: true,
        low_balance: 0,
      });
    } finally {
      await b.close();
      tmp.remove();
    }
  });
});
