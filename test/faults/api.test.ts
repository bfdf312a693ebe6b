// /sim/v1/devices/{id}/faults through a real service (real broker, real HTTP, a real SQLite file): the
// fault's view and lifecycle, the bad input of issue 12 (each a clear error in the envelope, nothing
// half-applied), the conflicts every meter route answers, and a restart that keeps an active fault.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Collected } from '../events/collect.ts';
import { ok, provision, type Sim, startTestService, type TestService } from '../helpers/service.ts';
import { failed, invalid, type Tenant, tenant, type V2Response } from '../helpers/v2.ts';

let t: TestService;
let seen: Collected;
let a: Tenant;

interface FaultView {
  fault_id: string;
  kind: string;
  start_at: string;
  end_at: string | null;
  active: boolean;
  seed: number;
  [param: string]: unknown;
}

/** The sim's answer as a V2Response, for the envelope checks of helpers/v2.ts. */
const asV2 = (r: Awaited<ReturnType<Sim>>) => ({ ...r, headers: new Headers() }) as unknown as V2Response;
const faults = (id: string) => `/devices/${id}/faults`;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  seen = new Collected(t.svc.bus);
  a = await tenant(t.sim, { mode: 'postpaid', load_watts: 500 });
});
afterAll(async () => {
  await t.close();
  expect(seen.invalid).toEqual([]);
});

async function nowMs(): Promise<number> {
  return ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
}

describe('the faults routes', () => {
  it('POST → 201 with the view; GET lists it; the device view shows it; fault.added on the bus', async () => {
    const now = await nowMs();
    const res = await t.sim<FaultView>('POST', faults(a.deviceId), {
      kind: 'voltage_sag',
      volts: 190,
      duration_s: 600,
      seed: 42,
    });
    const f = ok(res, 201);
    expect(res.body.message).toBe('fault started');
    expect(f).toEqual({
      fault_id: 'F1',
      kind: 'voltage_sag',
      volts: 190,
      start_at: expect.stringMatching(/\+05:30$/),
      end_at: expect.stringMatching(/\+05:30$/),
      active: true,
      seed: 42,
    });
    expect(Date.parse(f.end_at!) - Date.parse(f.start_at)).toBe(600_000);
    expect(Date.parse(f.start_at)).toBe(now);
    expect(ok(await t.sim<FaultView[]>('GET', faults(a.deviceId)))).toEqual([f]);
    const device = ok(await t.sim<{ faults: FaultView[] }>('GET', `/devices/${a.deviceId}`));
    expect(device.faults).toEqual([f]);
    const added = seen.of('fault.added', a.deviceId);
    expect(added.map((e) => e.data)).toEqual([
      { fault_id: 'F1', kind: 'voltage_sag', from: now, until: now + 600_000 },
    ]);
  });

  it('a scheduled fault: active false until its start; a default seed; an ended fault is no longer listed', async () => {
    const now = await nowMs();
    const start = new Date(now + 3_600_000).toISOString();
    const res = await t.sim<FaultView>('POST', faults(a.deviceId), {
      kind: 'tamper',
      type: 'magnet',
      start_at: start,
    });
    const f = ok(res, 201);
    expect(res.body.message).toBe('fault scheduled');
    expect(f).toMatchObject({ fault_id: 'F2', active: false, end_at: null, type: 'magnet' });
    expect(Number.isInteger(f.seed)).toBe(true);
    ok(await t.sim('POST', '/clock/advance', { seconds: 3600 }));
    const list = ok(await t.sim<FaultView[]>('GET', faults(a.deviceId)));
    // F1 (10 min) has ended; F2 has begun.
    expect(list.map((x) => [x.fault_id, x.active])).toEqual([['F2', true]]);
  });

  it('DELETE one → the fault cleared, fault.cleared; again → 404; DELETE all → what was left', async () => {
    ok(await t.sim('POST', faults(a.deviceId), { kind: 'clock_skew', seconds: 5 }), 201);
    const one = ok(await t.sim<FaultView>('DELETE', `${faults(a.deviceId)}/F2`));
    expect(one).toMatchObject({ fault_id: 'F2', kind: 'tamper' });
    expect(seen.of('fault.cleared', a.deviceId).map((e) => e.data)).toEqual([{ fault_ids: ['F2'] }]);
    const again = await t.sim('DELETE', `${faults(a.deviceId)}/F2`);
    expect(failed(asV2(again), 404, 'not_found')).toMatch(/no active or scheduled fault F2/);
    const all = ok(await t.sim<FaultView[]>('DELETE', faults(a.deviceId)));
    expect(all.map((x) => x.fault_id)).toEqual(['F3']);
    expect(ok(await t.sim<FaultView[]>('GET', faults(a.deviceId)))).toEqual([]);
    // Ids are never reused.
    expect(
      ok(await t.sim<FaultView>('POST', faults(a.deviceId), { kind: 'telemetry_gap', duration_s: 1 }), 201)
        .fault_id,
    ).toBe('F4');
  });
});

describe('bad input: a clear error in the envelope, nothing applied', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['unknown kind', { kind: 'lightning' }, 'kind'],
    ['negative duration', { kind: 'power_outage', duration_s: -5 }, 'duration_s'],
    ['zero duration', { kind: 'power_outage', duration_s: 0 }, 'duration_s'],
    ['a sag to 0 V', { kind: 'voltage_sag', volts: 0 }, 'volts'],
    ['a swell below nominal', { kind: 'voltage_swell', volts: 200 }, 'volts'],
    ['a missing parameter', { kind: 'tamper' }, 'type'],
    ['an unknown parameter', { kind: 'power_outage', volts: 3 }, ''],
    ['a start in the past', { kind: 'power_outage', start_at: '2001-01-01T00:00:00+05:30' }, 'start_at'],
    ['reply_delay with neither', { kind: 'reply_delay' }, 'delay_ms'],
    ['reply_delay min above max', { kind: 'reply_delay', min_ms: 500, max_ms: 100 }, 'min_ms'],
    ['register_reset with a duration', { kind: 'register_reset', duration_s: 60 }, 'duration_s'],
    ['a probability above 1', { kind: 'reply_drop', probability: 2 }, 'probability'],
  ];
  it.each(cases)('%s → 422 validation_error naming the field', async (_name, body, field) => {
    const b = await tenant(t.sim);
    const res = await t.sim('POST', faults(b.deviceId), body);
    const items = invalid(asV2(res));
    expect(items.length).toBeGreaterThan(0);
    if (field) expect(items.map((i) => i.loc.join('.')).join(' ')).toContain(field);
    expect(ok(await t.sim<FaultView[]>('GET', faults(b.deviceId)))).toEqual([]);
    const view = ok(await t.sim<{ faults: unknown[] }>('GET', `/devices/${b.deviceId}`));
    expect(view.faults).toEqual([]);
  });

  it('a rollover at or below the present register → 422 on max_kwh', async () => {
    const b = await tenant(t.sim, { mode: 'postpaid', load_watts: 1000 });
    ok(await t.sim('POST', '/clock/advance', { seconds: 3600 })); // 1 kWh on the register
    const res = await t.sim('POST', faults(b.deviceId), { kind: 'register_rollover', max_kwh: 0.5 });
    expect(invalid(asV2(res))).toEqual([
      {
        loc: ['body', 'max_kwh'],
        msg: 'max_kwh 0.5 must exceed the register the meter shows now, 1 kWh',
      },
    ]);
    ok(await t.sim('POST', faults(b.deviceId), { kind: 'register_rollover', max_kwh: 2 }), 201);
  });

  it('a fault of the same kind over the same time → 409 conflict; a later one is fine', async () => {
    const b = await tenant(t.sim);
    ok(await t.sim('POST', faults(b.deviceId), { kind: 'power_outage', duration_s: 600 }), 201);
    const clash = await t.sim('POST', faults(b.deviceId), { kind: 'power_outage' });
    expect(failed(asV2(clash), 409, 'conflict')).toMatch(/F1 \(power_outage\) already covers/);
    const later = new Date((await nowMs()) + 600_000).toISOString();
    ok(await t.sim('POST', faults(b.deviceId), { kind: 'power_outage', start_at: later }), 201);
    expect(ok(await t.sim<FaultView[]>('GET', faults(b.deviceId))).map((f) => f.fault_id)).toEqual([
      'F1',
      'F2',
    ]);
  });

  it('an unknown device → 404; a malformed fault id → 422; an external device → 409', async () => {
    failed(asV2(await t.sim('POST', faults('NOPE-1'), { kind: 'power_outage' })), 404, 'not_found');
    failed(asV2(await t.sim('GET', faults('NOPE-1'))), 404, 'not_found');
    failed(asV2(await t.sim('DELETE', faults('NOPE-1'))), 404, 'not_found');
    invalid(asV2(await t.sim('DELETE', `${faults(a.deviceId)}/X1`)));
    const ext = await provision(t.sim, { account_id: a.accountId, external: true });
    const res = await t.sim('POST', faults(ext.device_id), { kind: 'power_outage' });
    expect(failed(asV2(res), 409, 'conflict')).toMatch(/is external/);
    failed(asV2(await t.sim('DELETE', `${faults(ext.device_id)}/F1`)), 409, 'conflict');
  });
});

describe('a restart', () => {
  it('keeps an active fault (it lives in the meter snapshot) and its id sequence', async () => {
    const first = await startTestService({ speed: 0 });
    let second: TestService | undefined;
    try {
      const m = await tenant(first.sim);
      const f = ok(
        await first.sim<FaultView>('POST', faults(m.deviceId), { kind: 'welded_relay', duration_s: 86_400 }),
        201,
      );
      await first.svc.close();
      second = await startTestService({ speed: 0, db: first.db });
      const list = ok(await second.sim<FaultView[]>('GET', faults(m.deviceId)));
      expect(list).toEqual([{ ...f, active: true }]);
      const next = ok(
        await second.sim<FaultView>('POST', faults(m.deviceId), { kind: 'tamper', type: 'magnet' }),
        201,
      );
      expect(next.fault_id).toBe('F2');
    } finally {
      await second?.svc.close();
      await first.close().catch(() => undefined);
    }
  });
});
