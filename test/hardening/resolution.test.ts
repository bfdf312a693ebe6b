// Issue 8 item 17 [MC-4.4] [MC-7.7] [M-16]: a meter reports every value at the register resolution its
// model declares (energy to the Wh, power 0.1 W, voltage 0.01 V, current 1 mA, PF 0.001, S and Q 0.1),
// written as that decimal, never as binary-float noise (942.241598476475, 1578.9473684210527); billing
// stays exact inside. A property test over the pure meter, then a real service end to end.

import Database from 'better-sqlite3';
import fc from 'fast-check';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { MeterModel, Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';
import {
  createMeter,
  createTraceMeter,
  fastForward,
  type LoadProfile,
  PROPERTY_CATALOGUE,
  readingsAt,
  step,
  UNITS_PER_PAISE,
} from '../../simulator/meter/index.ts';
import { sampleOf } from '../../src/bridge/modbus/registers.ts';
import { Inbox, ServiceClients } from '../helpers/mqtt.ts';
import { newAccount, ok, provision, startTestService, type TestService } from '../helpers/service.ts';
import { data, v2Client } from '../helpers/v2.ts';

const T0 = Date.UTC(2026, 0, 4, 18, 30);

/** Decimal places of a number as JSON writes it; Infinity for exponent notation. */
function decimalsOf(value: number): number {
  const text = JSON.stringify(value);
  if (/e/i.test(text)) return Number.POSITIVE_INFINITY;
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

const placesOf = (resolution: number) => Math.round(-Math.log10(resolution));

/** Every measured value of `s` written with no more decimals than its declared resolution has. */
function offResolution(s: Record<string, unknown>, model: MeterModel): string[] {
  const bad: string[] = [];
  for (const p of PROPERTY_CATALOGUE[model]) {
    const v = s[p.property_id];
    if (typeof v !== 'number') continue;
    if (decimalsOf(v) > placesOf(p.resolution!)) bad.push(`${p.property_id}=${JSON.stringify(v)}`);
  }
  return bad;
}

const loadArb: fc.Arbitrary<LoadProfile> = fc.oneof(
  fc.record({
    kind: fc.constant('constant' as const),
    watts: fc.double({ min: 0, max: 100_000, noNaN: true }),
    powerFactor: fc.double({ min: 0.1, max: 1, noNaN: true }),
  }),
  fc.record({
    kind: fc.constant('household' as const),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    peakWatts: fc.integer({ min: 1, max: 20_000 }),
  }),
);

describe('[M-16] [MC-7.7] issue 8 item 17: every reported value is a multiple of its declared resolution', () => {
  it('the catalogue declares a power-of-ten resolution for every property of both models [MC-4.4]', () => {
    for (const model of ['basic', 'full'] as const) {
      for (const p of PROPERTY_CATALOGUE[model]) {
        expect(p.resolution, p.property_id).toBeGreaterThan(0);
        expect(10 ** -placesOf(p.resolution!)).toBe(p.resolution);
      }
    }
  });

  it('property: telemetry over random loads, registers and durations, a read and a connect sample', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<MeterModel>('basic', 'full'),
        loadArb,
        fc.bigInt({ min: 0n, max: 10n ** 17n }),
        fc.integer({ min: 1, max: 2_000 }),
        fc.integer({ min: 0, max: 899_999 }),
        fc.constantFrom(1, 15, 60, 900),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (model, load, energy, periods, extraMs, periodS, seed) => {
          const span = periods * periodS * 1000 + (extraMs % (periodS * 1000));
          const m = {
            ...createMeter(
              { deviceId: 'p', model, mode: 'postpaid', load, seed, telemetryPeriodMs: periodS * 1000 },
              T0,
            ),
            energy,
          };
          const end = T0 + span;
          const { state, samples } = fastForward(m, end);
          const last = samples.slice(-200); // the rounding does not depend on where in the run
          const read = step(state, { type: 'command', id: 'r', command: { op: 'read' } }, end + 7);
          const replied = read.effects.find((e) => e.type === 'reply');
          if (replied?.type !== 'reply') throw new Error('read gave no reply');
          const readings = (replied.reply as { data: { readings: Sample } }).data.readings;
          const connect = step(state, { type: 'connect' }, end + 11).effects.flatMap((e) =>
            e.type === 'telemetry' ? [e.sample] : [],
          );
          for (const s of [...last, readingsAt(state, end), readings, ...connect])
            expect(offResolution({ ...s }, model)).toEqual([]);
          // Billing is untouched by the rounding: the balance fell by exactly tariff × energy.
          const used = state.energy - energy;
          expect(m.balance - state.balance).toBe(BigInt(m.ebTariff) * used);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('property: a trace meter rounds what the trace says, whatever its digits', () => {
    const reading = fc.double({ min: -50_000, max: 50_000, noNaN: true });
    fc.assert(
      fc.property(
        fc.constantFrom<MeterModel>('basic', 'full'),
        fc.array(
          fc.record({
            energy: fc.bigInt({ min: 0n, max: 10n ** 13n }),
            active_power: fc.double({ min: 0, max: 50_000, noNaN: true }),
            voltage: fc.double({ min: 100, max: 300, noNaN: true }), // a live line
            reactive_power: reading,
          }),
          { minLength: 1, maxLength: 20 },
        ),
        (model, entries) => {
          let s = createTraceMeter({ deviceId: 't', model, mode: 'postpaid' }, T0);
          entries.forEach((e, i) => {
            const r = step(s, { type: 'sample', energy: e.energy, readings: e }, T0 + (i + 1) * 60_000);
            s = r.state;
            for (const eff of r.effects)
              if (eff.type === 'telemetry') expect(offResolution({ ...eff.sample }, model)).toEqual([]);
          });
        },
      ),
      { numRuns: 100 },
    );
  });

  it('the Modbus bridge rounds the float32 decimals of an SDM120 to what it declares', () => {
    const s = sampleOf(
      {
        voltage: 230.1234,
        current: 5.123456,
        active_power: 1178.123,
        apparent_power: 1179.987,
        reactive_power: -12.3456,
        power_factor: 0.99876,
        energy: 942.241598,
      },
      T0,
    );
    expect(s).toMatchObject({
      voltage: 230.12,
      current: 5.123,
      active_power: 1178.1,
      apparent_power: 1180,
      reactive_power: -12.3,
      power_factor: 0.999,
      energy: 942.242,
    });
  });
});

describe('[MC-7.7] issue 8 item 17 end to end: no float noise in the v2 API or the store', () => {
  let t: TestService;
  let key: string;
  let clients: ServiceClients;
  const ids: string[] = [];

  beforeAll(async () => {
    t = await startTestService({ speed: 0 });
    const account = await newAccount(t.sim, 'resolution');
    key = account.api_key;
    clients = new ServiceClients(t.svc.mqttUrl, t.svc.adminToken);
    const space = ok(
      await t.sim<{ space_id: number }>('POST', '/spaces', { account_id: account.account_id, name: 'Lab' }),
    ).space_id;
    for (const [model, body] of [
      ['full', { load_watts: 1578.9473, backfill_days: 1 }],
      ['basic', { load_watts: 333.3333 }],
      ['full', { load_watts: 2718.2818, load_profile: 'household', seed: 42 }],
    ] as const) {
      const d = await provision(t.sim, {
        account_id: account.account_id,
        space_id: space,
        model,
        mode: 'prepaid',
        balance: 1_000_000,
        eb_tariff: 733,
        ...body,
      });
      ids.push(d.device_id);
    }
    ok(await t.sim('POST', '/clock/advance', { seconds: 7 * 3600 + 13 * 60 + 17 }));
  });
  afterAll(async () => {
    await clients?.endAll();
    await t?.close();
  });

  it('GET /devices/{id}/ readings and GET /devices/{id}/metrics', async () => {
    const v2 = v2Client(t.svc.httpUrl, key);
    for (const [i, id] of ids.entries()) {
      const model: MeterModel = i === 1 ? 'basic' : 'full';
      const view = data(
        await v2<{ readings: { property_id: string; value: number }[] }>('GET', `/devices/${id}/`),
      );
      expect(view.readings.length).toBe(PROPERTY_CATALOGUE[model].length);
      const flat = Object.fromEntries(view.readings.map((r) => [r.property_id, r.value]));
      expect(offResolution(flat, model)).toEqual([]);
      const metrics = data(await v2<Record<string, unknown>>('GET', `/devices/${id}/metrics`));
      expect(offResolution(metrics, model)).toEqual([]);
    }
  });

  it('every stored sample (what history serves) and every history point', async () => {
    const sqlite = new Database(t.db, { readonly: true });
    try {
      for (const [i, id] of ids.entries()) {
        const model: MeterModel = i === 1 ? 'basic' : 'full';
        const rows = sqlite
          .prepare('SELECT s.* FROM samples s JOIN devices d ON d.pk = s.device_pk WHERE d.device_id = ?')
          .all(id) as Record<string, unknown>[];
        expect(rows.length).toBeGreaterThan(400);
        const bad = rows.flatMap((r) => offResolution(r, model));
        expect(bad.slice(0, 5)).toEqual([]);
      }
    } finally {
      sqlite.close();
    }
    const v2 = v2Client(t.svc.httpUrl, key);
    const today = ok(await t.sim<{ now: string }>('GET', '/clock')).now.slice(0, 10);
    for (const p of PROPERTY_CATALOGUE.full) {
      const h = data(
        await v2<{ readings: { value: number }[] }>(
          'GET',
          `/devices/${ids[0]}/metrics/history?property_id=${p.property_id}&from_date=${today}&to_date=${today}&interval=15m`,
        ),
      );
      expect(h.readings.length).toBeGreaterThan(0);
      for (const r of h.readings) expect(decimalsOf(r.value)).toBeLessThanOrEqual(placesOf(p.resolution!));
    }
  });

  it('the retained info declares each property’s resolution [MC-4.4]', async () => {
    const admin: MqttClient = await clients.admin();
    const inbox = new Inbox(admin);
    await admin.subscribeAsync(topicFor(ids[0]!, 'info'), { qos: 1 });
    const info = await inbox.waitFor((m) => m.topic === topicFor(ids[0]!, 'info'));
    expect(info.json['properties']).toEqual(PROPERTY_CATALOGUE.full);
    expect(PROPERTY_CATALOGUE.full.find((p) => p.property_id === 'energy')?.resolution).toBe(0.001);
  });

  it('billing stays exact: the balance fell by exactly tariff × the energy register', async () => {
    const id = ids[1]!;
    const meter = ok(await t.sim<{ balance_exact: { units: string } }>('GET', `/devices/${id}`));
    // 333.3333 W since provisioning, all prepaid at 733 paise/kWh: no rounding anywhere in between.
    const units = BigInt(meter.balance_exact.units);
    const charged = 1_000_000n * UNITS_PER_PAISE - units;
    expect(charged % 733n).toBe(0n);
    expect(charged / 733n).toBe(333_333n * BigInt(7 * 3600 + 13 * 60 + 17) * 1000n);
  });
});
