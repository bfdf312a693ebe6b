// docs/faults.md, each row of the pure meter's faults proved through a real service: real broker, real
// MQTT meters, real HTTP (v2 API and /sim/v1), the samples read back from the real SQLite file. The
// clock is frozen (speed 0) and moved by /sim/v1/clock/advance, so balances and samples are exact.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { istDate } from '../../src/time/ist.ts';
import { Collected } from '../events/collect.ts';
import { queryDb } from '../helpers/db.ts';
import { ok, startTestService, type TestService } from '../helpers/service.ts';
import { data, type History, type Metrics, type Tenant, tenant, v2Client } from '../helpers/v2.ts';

const MIN = 60_000;
let t: TestService;
let seen: Collected;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  seen = new Collected(t.svc.bus);
});
afterAll(async () => {
  await t.close();
  expect(seen.invalid).toEqual([]);
});

type Row = { ts: number; energy: number; active_power: number; voltage: number; current: number | null };
const rows = (id: string) =>
  queryDb<Row>(
    t.db,
    `SELECT s.ts, s.energy, s.active_power, s.voltage, s.current FROM samples s
     JOIN devices d ON d.pk = s.device_pk WHERE d.device_id = ? ORDER BY s.ts`,
    [id],
  );
const nowMs = async () => ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
const advance = async (s: number) => ok(await t.sim('POST', '/clock/advance', { seconds: s }));
/** Advances the clock to virtual ms `to`. */
const advanceTo = async (to: number) => advance((to - (await nowMs())) / 1000);
const units = async (id: string) =>
  BigInt(ok(await t.sim<{ balance_exact: { units: string } }>('GET', `/devices/${id}`)).balance_exact.units);
const addFault = async (id: string, body: Record<string, unknown>) =>
  ok(await t.sim<{ fault_id: string }>('POST', `/devices/${id}/faults`, body), 201);
const QUARTER = 15 * MIN;
const metrics = (a: Tenant) =>
  v2Client(t.svc.httpUrl, a.key)<Metrics>('GET', `/devices/${a.deviceId}/metrics`);

describe('docs/faults.md: the pure meter faults on the v2 API', () => {
  it('power_outage: 1 h on a prepaid meter → no readings in history for that hour, balance unchanged across it, live reads fail, back after', async () => {
    const a = await tenant(t.sim, {
      mode: 'prepaid',
      balance: 100_000,
      load_watts: 1000,
      telemetry_period_s: 60,
    });
    const v2 = v2Client(t.svc.httpUrl, a.key);
    await advance(20 * 60); // history before the outage: a whole 15 min interval of it at least
    const from = (await nowMs()) + 10 * MIN;
    const until = from + 60 * MIN;
    await addFault(a.deviceId, {
      kind: 'power_outage',
      start_at: new Date(from).toISOString(),
      duration_s: 3600,
    });
    await advanceTo(from);
    const before = await units(a.deviceId);
    await advance(1800);
    // The unpowered meter dropped off the broker without a goodbye: its will says offline.
    const during = await metrics(a);
    expect(during.status).toBe(400);
    expect(during.body.error?.code).toBe('device_offline');
    const off = data(await v2<{ is_online: boolean }>('GET', `/devices/${a.deviceId}/`));
    expect(off.is_online).toBe(false);
    await advanceTo(until);
    expect(await units(a.deviceId)).toBe(before); // nothing billed while it lasted
    await advance(900);
    expect(await units(a.deviceId)).toBeLessThan(before); // billing resumed

    const all = await rows(a.deviceId);
    expect(all.filter((r) => r.ts >= from && r.ts < until)).toEqual([]);
    expect(all.some((r) => r.ts < from)).toBe(true);
    expect(all.filter((r) => r.ts >= until).length).toBeGreaterThanOrEqual(15);
    const day = istDate(from);
    const qs = `property_id=energy&from_date=${day}&to_date=${istDate(until + 15 * MIN)}&interval=15m`;
    const history = data(await v2<History>('GET', `/devices/${a.deviceId}/metrics/history?${qs}`));
    const at = history.readings.map((r) => Date.parse(r.timestamp));
    // The 15 min intervals wholly inside the outage have no reading; those around it do.
    const firstInside = Math.ceil(from / QUARTER) * QUARTER;
    const endInside = Math.floor(until / QUARTER) * QUARTER;
    expect(endInside - firstInside).toBeGreaterThanOrEqual(45 * MIN);
    expect(at.filter((x) => x >= firstInside && x < endInside)).toEqual([]);
    expect(at.some((x) => x < firstInside)).toBe(true);
    expect(at.some((x) => x >= until)).toBe(true);
    const live = data(await metrics(a));
    expect(live).toMatchObject({ relay_state: true, active_power: 1000 });
    const device = data(await v2<{ is_online: boolean }>('GET', `/devices/${a.deviceId}/`));
    expect(device.is_online).toBe(true);
  });

  it('voltage_sag: live and stored voltage at the sag ± 1.5 V, current P/V on a full meter; the normal band after', async () => {
    const a = await tenant(t.sim, {
      mode: 'postpaid',
      model: 'full',
      load_watts: 2000,
      telemetry_period_s: 60,
    });
    const start = await nowMs();
    await addFault(a.deviceId, { kind: 'voltage_sag', volts: 180, duration_s: 600 });
    const live = data(await metrics(a));
    expect(Math.abs(live.voltage - 180)).toBeLessThanOrEqual(1.5);
    await advance(1200);
    const all = (await rows(a.deviceId)).filter((r) => r.ts > start);
    const sagged = all.filter((r) => r.ts < start + 10 * MIN);
    expect(sagged.length).toBeGreaterThanOrEqual(9);
    for (const r of sagged) {
      expect(Math.abs(r.voltage - 180)).toBeLessThanOrEqual(1.5);
      expect(r.current).toBeCloseTo(r.active_power / r.voltage / 0.95, 1);
    }
    for (const r of all.filter((x) => x.ts >= start + 10 * MIN)) expect(r.voltage).toBeGreaterThan(225);
  });

  it('voltage_swell: stored voltage at the swell ± 1.5 V', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 500, telemetry_period_s: 60 });
    const start = await nowMs();
    await addFault(a.deviceId, { kind: 'voltage_swell', volts: 262, duration_s: 300 });
    await advance(300);
    const swelled = (await rows(a.deviceId)).filter((r) => r.ts > start && r.ts < start + 5 * MIN);
    expect(swelled.length).toBeGreaterThanOrEqual(4);
    for (const r of swelled) expect(Math.abs(r.voltage - 262)).toBeLessThanOrEqual(1.5);
  });

  it('clock_skew: +2 min → samples stored 2 min ahead of their instants; +15 min → refused (MC-3.10 tsInFuture), none stored', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 500, telemetry_period_s: 60 });
    const start = await nowMs();
    const f1 = await addFault(a.deviceId, { kind: 'clock_skew', seconds: 120, duration_s: 300 });
    await advance(300);
    const skewed = (await rows(a.deviceId)).filter((r) => r.ts > start);
    expect(skewed.length).toBeGreaterThanOrEqual(4);
    expect(skewed.slice(0, 4).every((r) => (r.ts - 120_000) % MIN === 0)).toBe(true);
    expect(f1.fault_id).toBe('F1');

    const mid = await nowMs();
    await addFault(a.deviceId, { kind: 'clock_skew', seconds: 900, duration_s: 300 });
    const refusedBefore = seen.of('contract.refused').length;
    await advance(300);
    const stored = (await rows(a.deviceId)).filter((r) => r.ts > mid + 1);
    expect(stored.filter((r) => r.ts > mid + 15 * MIN)).toEqual([]);
    await seen.waitFor('contract.refused', () => seen.of('contract.refused').length > refusedBefore, 5_000);
  });

  it('clock_drift: +10,000 ppm → each stored sample 0.6 s further ahead per minute', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 500, telemetry_period_s: 60 });
    const from = await nowMs();
    await addFault(a.deviceId, { kind: 'clock_drift', ppm: 10_000 });
    await advance(300);
    const drifted = (await rows(a.deviceId)).filter((r) => r.ts > from);
    expect(drifted).toHaveLength(5);
    for (const r of drifted) {
      const trueTs = Math.floor(r.ts / MIN) * MIN;
      expect(r.ts - trueTs).toBe(Math.round((trueTs - from) * 0.01));
    }
  });

  it('welded_relay: commanded off through the v2 API, current still flows and is billed; /metrics says relay off, power on', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 1000, telemetry_period_s: 60 });
    const v2 = v2Client(t.svc.httpUrl, a.key);
    await addFault(a.deviceId, { kind: 'welded_relay' });
    data(await v2('PUT', `/devices/${a.deviceId}/relay`, { state: false }));
    const before = await units(a.deviceId);
    const e0 = data(await metrics(a)).energy;
    await advance(1800);
    const live = data(await metrics(a));
    expect(live).toMatchObject({ relay_state: false, active_power: 1000 });
    expect(live.energy - e0).toBeCloseTo(0.5, 3);
    expect(before - (await units(a.deviceId))).toBe(400n * 3_600_000_000_000n); // 0.5 kWh at 800 paise
  });

  it('relay_stuck_open: commanded on, no current, nothing billed; /metrics says relay on, power 0', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 1000, telemetry_period_s: 60 });
    await addFault(a.deviceId, { kind: 'relay_stuck_open', duration_s: 1800 });
    const before = await units(a.deviceId);
    const e0 = data(await metrics(a)).energy;
    await advance(900);
    const live = data(await metrics(a));
    expect(live).toMatchObject({ relay_state: true, active_power: 0, energy: e0 });
    expect(await units(a.deviceId)).toBe(before);
    await advance(900);
    expect(data(await metrics(a)).active_power).toBe(1000); // it ended: the relay logic holds again
  });

  it('tamper: meter.tamper when it appears and when it clears; the v2 API is unchanged', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', telemetry_period_s: 60 });
    await addFault(a.deviceId, { kind: 'tamper', type: 'cover_open' });
    const on = await seen.waitFor('meter.tamper', (e) => e.device_id === a.deviceId);
    expect(on.data).toEqual({ tamper: ['cover_open'], was: [] });
    expect(on.account_id).toBe(a.accountId);
    data(await metrics(a));
    ok(await t.sim('DELETE', `/devices/${a.deviceId}/faults`));
    const off = await seen.waitFor(
      'meter.tamper',
      (e) => e.device_id === a.deviceId && e.data.tamper.length === 0,
    );
    expect(off.data).toEqual({ tamper: [], was: ['cover_open'] });
  });

  it('telemetry_gap: samples due while it lasts are never stored; energy and billing run on', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', load_watts: 1200, telemetry_period_s: 60 });
    const from = (await nowMs()) + 5 * MIN;
    await addFault(a.deviceId, {
      kind: 'telemetry_gap',
      start_at: new Date(from).toISOString(),
      duration_s: 600,
    });
    await advance(25 * 60);
    const all = await rows(a.deviceId);
    expect(all.filter((r) => r.ts >= from && r.ts < from + 10 * MIN)).toEqual([]);
    const last = all.filter((r) => r.ts < from).at(-1)!;
    const next = all.find((r) => r.ts >= from + 10 * MIN)!;
    expect(next.ts - last.ts).toBe(11 * MIN); // ten samples never produced
    expect(next.energy - last.energy).toBeCloseTo(1.2 * (11 / 60), 3); // 11 min at 1.2 kW: energy ran on
  });
});
