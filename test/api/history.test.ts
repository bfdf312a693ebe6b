// History (endpoint 12) on backfilled and live telemetry, checked against values computed here
// independently: every sample is read straight from the service's database (SQLite, and PostgreSQL:
// issue 11 §3), bucketed in
// Asia/Kolkata with luxon's time-zone database (not the service's fixed-offset arithmetic), and the
// last sample inside each interval taken. Gaps come from an external meter that publishes only the
// samples a test chooses, so "intervals with no reading are left out" is checked on real gaps.

import { DateTime } from 'luxon';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { infoPayload } from '../hardening/hand-meter.ts';
import { dbBackends, freshDb, queryDb } from '../helpers/db.ts';
import { ServiceClients } from '../helpers/mqtt.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService, worldToNoonIst } from '../helpers/service.ts';
import { data, type History, invalid, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

const ZONE = 'Asia/Kolkata';
const UNITS: Record<string, string> = { energy: 'kWh', active_power: 'W', voltage: 'V', current: 'A' };
const MINUTES = { '15m': 15, '30m': 30, '60m': 60, '1d': 1440 } as const;
type Interval = keyof typeof MINUTES;
type Row = Record<string, number>;

describe.each(await dbBackends())('on $name', ({ name: backend }) => {
  let t: TestService;
  let v2: V2;
  let clients: ServiceClients;
  let removeDb: () => Promise<void> = async () => {};
  /** A household meter: 3 days backfilled at 300 s, then 25 live minutes at 60 s. */
  let house: Tenant;
  /** A constant 1 kW meter, 3 days backfilled at 300 s. */
  let flat: Tenant;
  /** IST dates: today and the three days before it. */
  let days: string[];

  beforeAll(async () => {
    if (backend === 'sqlite') t = await startTestService({ speed: 0 });
    else {
      const fresh = await freshDb(backend);
      removeDb = fresh.remove;
      t = await startTestService({ speed: 0, db: fresh.db });
    }
    v2 = v2Client(t.svc.httpUrl);
    clients = new ServiceClients(t.svc.mqttUrl, ADMIN_TOKEN);
    // days[1] and days[2] must be wholly backfilled (300 s samples): from noon IST the 25 live minutes
    // never reach an IST midnight (started after 23:35 IST they did, and days[2]'s daily value moved).
    await worldToNoonIst(t.sim);
    const backfill = { mode: 'postpaid', backfill_days: 3, backfill_period_s: 300, telemetry_period_s: 60 };
    [house, flat] = await Promise.all([
      tenant(t.sim, { ...backfill, model: 'full', load_profile: 'household', load_watts: 3000, seed: 7 }),
      tenant(t.sim, { ...backfill, model: 'basic', load_watts: 1000 }),
    ]);
    ok(await t.sim('POST', '/clock/advance', { seconds: 25 * 60 }));
    const now = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
    const today = DateTime.fromMillis(now, { zone: ZONE }).startOf('day');
    days = [3, 2, 1, 0].map((n) => today.minus({ days: n }).toISODate()!);
  });
  afterEach(() => clients.endAll());
  afterAll(async () => {
    await t.close();
    await removeDb();
  });

  function samplesOf(deviceId: string): Promise<Row[]> {
    return queryDb<Row>(
      t.db,
      `SELECT s.ts, s.energy, s.active_power, s.voltage, s.current FROM samples s
     JOIN devices d ON d.pk = s.device_pk WHERE d.device_id = ? ORDER BY s.ts`,
      [deviceId],
    );
  }

  const ends = new Map<string, string>();
  /** The last second, in +05:30, of the IST interval of `minutes` holding `ts`. */
  function intervalEnd(ts: number, minutes: number): string {
    // Every sample of one UTC quarter hour lies in the same IST interval (IST is UTC+05:30), so luxon,
    // which is slow per call, is asked once per quarter hour.
    const key = `${minutes}:${Math.floor(ts / 900_000)}`;
    let end = ends.get(key);
    if (end === undefined) {
      const at = DateTime.fromMillis(ts, { zone: ZONE });
      const first =
        minutes === 1440
          ? at.startOf('day')
          : at.startOf('hour').plus({ minutes: Math.floor(at.minute / minutes) * minutes });
      end = first.plus({ minutes }).minus({ seconds: 1 }).toISO({ suppressMilliseconds: true })!;
      ends.set(key, end);
    }
    return end;
  }

  /** The spec's rules, computed independently: last sample inside each IST interval, stamped with its last second. */
  function expected(
    rows: Row[],
    property: string,
    from: string,
    to: string,
    interval: Interval,
    asked = property,
  ) {
    const start = DateTime.fromISO(from, { zone: ZONE }).startOf('day').toMillis();
    const end = DateTime.fromISO(to, { zone: ZONE }).plus({ days: 1 }).startOf('day').toMillis();
    const minutes = MINUTES[interval];
    const byInterval = new Map<string, number>();
    for (const row of rows) {
      if (row.ts! < start || row.ts! >= end || row[property] === null) continue;
      byInterval.set(intervalEnd(row.ts!, minutes), row[property]!); // rows ascend by ts: the last one wins
    }
    return [...byInterval].map(([timestamp, value]) => ({
      property_id: asked,
      value,
      unit: UNITS[property],
      timestamp,
    }));
  }

  async function history(a: Tenant, q: Record<string, string>) {
    const qs = new URLSearchParams(q).toString();
    return data(await v2<History>('GET', `/devices/${a.deviceId}/metrics/history?${qs}`, undefined, a.key));
  }

  describe('values and timestamps against an independent computation', () => {
    const cases: [Interval, string][] = [
      ['15m', 'energy'],
      ['15m', 'current'],
      ['30m', 'active_power'],
      ['60m', 'voltage'],
      ['1d', 'energy'],
      ['1d', 'active_power'],
    ];
    it.each(cases)(
      '%s %s over four IST days (partial first and last day, backfilled and live)',
      async (interval, p) => {
        const got = await history(house, {
          property_id: p,
          from_date: days[0]!,
          to_date: days[3]!,
          interval,
        });
        expect(got).toMatchObject({ device_id: house.deviceId, from_date: days[0], to_date: days[3] });
        const want = expected(await samplesOf(house.deviceId), p, days[0]!, days[3]!, interval);
        expect(want.length).toBeGreaterThan(3);
        expect(got.readings).toEqual(want);
      },
    );

    it('interval defaults to 1d', async () => {
      const q = { property_id: 'voltage', from_date: days[1]!, to_date: days[2]! };
      expect((await history(house, q)).readings).toEqual(
        (await history(house, { ...q, interval: '1d' })).readings,
      );
      expect((await history(house, q)).readings).toEqual(
        expected(await samplesOf(house.deviceId), 'voltage', days[1]!, days[2]!, '1d'),
      );
    });

    it('active_energy names the same register as energy, and is echoed as asked', async () => {
      const got = await history(house, {
        property_id: 'active_energy',
        from_date: days[1]!,
        to_date: days[1]!,
        interval: '60m',
      });
      expect(got.readings).toEqual(
        expected(await samplesOf(house.deviceId), 'energy', days[1]!, days[1]!, '60m', 'active_energy'),
      );
    });

    it('a whole day at 15m: 96 intervals from …T00:14:59 to …T23:59:59 +05:30; daily …T23:59:59', async () => {
      const d = days[1]!;
      const r15 = (await history(flat, { property_id: 'energy', from_date: d, to_date: d, interval: '15m' }))
        .readings;
      expect(r15).toHaveLength(96);
      expect(r15[0]!.timestamp).toBe(`${d}T00:14:59+05:30`);
      expect(r15[1]!.timestamp).toBe(`${d}T00:29:59+05:30`);
      expect(r15[95]!.timestamp).toBe(`${d}T23:59:59+05:30`);
      const r1d = (await history(flat, { property_id: 'energy', from_date: d, to_date: d })).readings;
      expect(r1d).toEqual([
        { property_id: 'energy', value: r15[95]!.value, unit: 'kWh', timestamp: `${d}T23:59:59+05:30` },
      ]);
    });

    it("the interval in progress (spec-decisions 68): the reading so far, stamped with the interval's end, after now", async () => {
      const now = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
      const newest = (await samplesOf(house.deviceId)).at(-1)!;
      const today = days[3]!;
      for (const interval of ['1d', '15m'] as const) {
        const last = (
          await history(house, { property_id: 'energy', from_date: today, to_date: today, interval })
        ).readings.at(-1)!;
        expect(last.value, interval).toBe(newest.energy);
        expect(last.timestamp, interval).toBe(intervalEnd(newest.ts!, MINUTES[interval]));
        expect(Date.parse(last.timestamp), interval).toBeGreaterThan(now);
      }
    });

    it('a 60m interval is an IST hour: it ends at :29:59 UTC', async () => {
      const d = days[2]!;
      const r60 = (await history(flat, { property_id: 'energy', from_date: d, to_date: d, interval: '60m' }))
        .readings;
      expect(r60).toHaveLength(24);
      for (const r of r60) {
        const end = Date.parse(r.timestamp) + 1000;
        expect(new Date(end).toISOString()).toMatch(/T\d{2}:30:00\.000Z$/);
      }
      expect(new Date(Date.parse(r60[0]!.timestamp) + 1000 - 3_600_000).toISOString()).toBe(
        DateTime.fromISO(d, { zone: ZONE }).toUTC().toISO(),
      );
    });

    it('consumption is last − first: a constant 1 kW meter uses 24 kWh per day, 23.75 kWh from the first to the last 15m reading', async () => {
      const daily = (await history(flat, { property_id: 'energy', from_date: days[0]!, to_date: days[3]! }))
        .readings;
      expect(daily).toHaveLength(4);
      expect(daily[2]!.value - daily[1]!.value).toBeCloseTo(24, 9);
      const d = days[2]!;
      const r15 = (await history(flat, { property_id: 'energy', from_date: d, to_date: d, interval: '15m' }))
        .readings;
      // The last sample of the first interval is at 00:10, of the last at 23:55 (300 s samples).
      expect(r15.at(-1)!.value - r15[0]!.value).toBeCloseTo(23.75, 9);
      expect(r15.at(-1)!.value).toBe(daily[2]!.value);
    });

    it('a range before any reading is an empty list, not invented values', async () => {
      const q = { property_id: 'energy', from_date: '2020-01-01', to_date: '2020-01-31', interval: '15m' };
      expect((await history(flat, q)).readings).toEqual([]);
    });

    it('a property the model does not measure (current on a basic meter) → 422 Invalid property ID', async () => {
      const qs = `property_id=current&from_date=${days[1]}&to_date=${days[1]}`;
      expect(
        invalid(await v2('GET', `/devices/${flat.deviceId}/metrics/history?${qs}`, undefined, flat.key)),
      ).toEqual([{ loc: ['property_id'], msg: 'Invalid property ID' }]);
    });
  });

  describe('gaps and day boundaries, on samples an external meter chose to publish', () => {
    it('leaves out intervals with no reading, takes the last by ts whatever the arrival order, and keeps whole IST days', async () => {
      const a = await tenant(t.sim, { external: true, model: 'basic' });
      const meter = await clients.device(a.mqtt);
      // It stamps its samples on the world's clock, as a replayed trace does, and says so [MC-4.7];
      // a meter on wall time would have them mapped by the world's shift from wall time [MC-11.2].
      await meter.publishAsync(
        topicFor(a.deviceId, 'info'),
        JSON.stringify({ ...infoPayload(a.deviceId), clock: 'virtual' }),
        { qos: 1, retain: true },
      );
      const d = days[1]!;
      const at = (hhmmss: string, ms = 0) =>
        DateTime.fromISO(`${d}T${hhmmss}`, { zone: ZONE }).toMillis() + ms;
      const sample = (ts: number, energy: number) => ({
        ts,
        energy,
        active_power: 100,
        voltage: 230,
        balance: 0,
      });
      const dayStart = at('00:00:00');
      const nextDay = dayStart + 86_400_000;
      // Energy rises no faster than a meter can register [MC-7.8]: 1 ms apart, a sample adds 0.001 kWh.
      const batches = [
        // Sent first though later in time.
        [sample(at('02:00:00'), 5), sample(at('02:59:59', 999), 6), sample(at('03:00:00'), 6.001)],
        [
          sample(dayStart - 1, 1),
          sample(at('00:05:00'), 2),
          sample(at('00:10:00'), 3),
          sample(at('00:20:00'), 4),
        ],
        [sample(at('23:59:59', 999), 8), sample(nextDay, 8.001)],
      ];
      for (const samples of batches) {
        await meter.publishAsync(topicFor(a.deviceId, 'telemetry'), JSON.stringify({ v: 1, samples }), {
          qos: 1,
        });
      }
      const published = batches.flat().length;
      for (let i = 0; (await samplesOf(a.deviceId)).length < published; i++) {
        if (i > 200)
          throw new Error(`only ${(await samplesOf(a.deviceId)).length} of ${published} samples stored`);
        await new Promise((r) => setTimeout(r, 10));
      }

      const q = (interval: Interval, from = d, to = d) =>
        history(a, { property_id: 'energy', from_date: from, to_date: to, interval });
      const r = (time: string, value: number) => ({
        property_id: 'energy',
        value,
        unit: 'kWh',
        timestamp: `${d}T${time}+05:30`,
      });
      expect((await q('15m')).readings).toEqual([
        r('00:14:59', 3),
        r('00:29:59', 4),
        r('02:14:59', 5),
        r('02:59:59', 6),
        r('03:14:59', 6.001),
        r('23:59:59', 8),
      ]);
      expect((await q('60m')).readings).toEqual([
        r('00:59:59', 4),
        r('02:59:59', 6),
        r('03:59:59', 6.001),
        r('23:59:59', 8),
      ]);
      expect((await q('1d')).readings).toEqual([r('23:59:59', 8)]);
      // The samples one ms either side of the day belong to the neighbouring days.
      const around = (await q('1d', days[0], days[2])).readings;
      expect(around.map((x) => [x.timestamp.slice(0, 10), x.value])).toEqual([
        [days[0], 1],
        [d, 8],
        [days[2], 8.001],
      ]);
      expect((await q('30m')).readings).toEqual(expected(await samplesOf(a.deviceId), 'energy', d, d, '30m'));
    });
  });
});
