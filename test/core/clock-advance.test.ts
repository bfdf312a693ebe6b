// POST /sim/v1/clock/advance: every online meter lives through the jump, integrating and billing its
// load and publishing a sample at every telemetry period, so the stored history has no gap; billing is
// exact; a prepaid meter cuts off where its balance crosses zero and a recharge brings it back.

import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, ok, provision, startTestService, type TestService } from '../helpers/service.ts';

const UNITS_PER_PAISE = 3_600_000_000_000n; // balance units per paise = mW·ms per kWh
const PERIOD_S = 60;

interface MeterView {
  balance: number;
  balance_exact: { units: string; units_per_paise: string };
  energy_kwh: number;
  relay_state: boolean;
  relay_commanded: boolean;
  online: boolean;
}

let t: TestService;
let accountId: number;
let sqlite: Database.Database;

beforeAll(async () => {
  // speed 0: only explicit advances move the clock, so every count below is exact.
  t = await startTestService({ speed: 0 });
  accountId = (await newAccount(t.sim)).account_id;
  sqlite = new Database(t.db, { readonly: true });
});
afterAll(async () => {
  sqlite.close();
  await t.close();
});

const view = async (id: string) => ok(await t.sim<MeterView>('GET', `/devices/${id}`));
const advance = async (seconds: number) =>
  ok(await t.sim<{ from: string; to: string }>('POST', '/clock/advance', { seconds }));

function storedTimes(deviceId: string, after: number, upTo: number): number[] {
  return sqlite
    .prepare(
      `SELECT s.ts FROM samples s JOIN devices d ON d.pk = s.device_pk
       WHERE d.device_id = ? AND s.ts > ? AND s.ts <= ? ORDER BY s.ts`,
    )
    .pluck()
    .all(deviceId, after, upTo) as number[];
}

describe('a 6 h clock advance with telemetry every 60 s', () => {
  it('stores exactly 360 new samples per online meter, one per period with no gap, and none for an offline one', async () => {
    const meters = await Promise.all(
      (['basic', 'full'] as const).map((model) =>
        provision(t.sim, {
          account_id: accountId,
          model,
          mode: 'postpaid',
          load_watts: 800,
          telemetry_period_s: PERIOD_S,
        }),
      ),
    );
    const offline = await provision(t.sim, {
      account_id: accountId,
      online: false,
      telemetry_period_s: PERIOD_S,
    });
    const pks = await Promise.all(meters.map(async (m) => (await t.svc.store.getDevice(m.device_id))!.pk));
    const before = await Promise.all(pks.map((pk) => t.svc.store.countSamples(pk)));

    const { from, to } = await advance(6 * 3600);
    const fromMs = Date.parse(from);
    const toMs = Date.parse(to);
    expect(toMs - fromMs).toBe(6 * 3_600_000);

    for (const [i, m] of meters.entries()) {
      expect((await t.svc.store.countSamples(pks[i]!)) - before[i]!).toBe(360);
      const times = storedTimes(m.device_id, fromMs, toMs);
      expect(times).toHaveLength(360);
      expect(times[0]).toBe((Math.floor(fromMs / 60_000) + 1) * 60_000);
      expect(times.slice(1).every((ts, j) => ts - times[j]! === 60_000)).toBe(true);
    }
    const fullRow = sqlite
      .prepare(
        `SELECT s.* FROM samples s JOIN devices d ON d.pk = s.device_pk WHERE d.device_id = ? ORDER BY s.ts DESC LIMIT 1`,
      )
      .get(meters[1]!.device_id) as Record<string, number | null>;
    expect(fullRow).toMatchObject({
      active_power: 800,
      current: expect.any(Number),
      reactive_power: expect.any(Number),
    });
    expect(storedTimes(offline.device_id, fromMs, toMs)).toEqual([]);
  });

  it('bills a prepaid constant load exactly: balance falls by energy × tariff, to the unit', async () => {
    const watts = 1234;
    const tariff = 937; // paise per kWh
    const { device_id } = await provision(t.sim, {
      account_id: accountId,
      mode: 'prepaid',
      balance: 1_000_000,
      eb_tariff: tariff,
      load_watts: watts,
    });
    const before = await view(device_id);
    const { from, to } = await advance(6 * 3600);
    const after = await view(device_id);

    // Independently: energy in mW·ms is P(mW) × t(ms); the charge in balance units is tariff × energy.
    const energyMwMs = BigInt(watts * 1000) * BigInt(Date.parse(to) - Date.parse(from));
    const charged = BigInt(before.balance_exact.units) - BigInt(after.balance_exact.units);
    expect(charged).toBe(BigInt(tariff) * energyMwMs);
    expect(after.energy_kwh - before.energy_kwh).toBeCloseTo((watts * 6) / 1000, 9);
    expect(after.balance).toBe(1_000_000 - Math.ceil((tariff * watts * 6) / 1000));
  });

  it('cuts a prepaid meter off where its balance crosses zero, and a recharge closes the relay again [MC-5.3]', async () => {
    const watts = 1000;
    const tariff = 800;
    // 10 paise at 1 kW and 800 paise/kWh last 45 s.
    const { device_id } = await provision(t.sim, {
      account_id: accountId,
      mode: 'prepaid',
      balance: 10,
      eb_tariff: tariff,
      load_watts: watts,
    });
    await advance(600);
    const cut = await view(device_id);
    expect(cut).toMatchObject({ relay_commanded: true, relay_state: false, balance: -1 });
    // It stopped at the first ms the balance went below zero: less than one ms of charge below it.
    const perMs = BigInt(tariff) * BigInt(watts * 1000);
    const units = BigInt(cut.balance_exact.units);
    expect(units < 0n && units >= -perMs).toBe(true);
    expect(cut.energy_kwh).toBeCloseTo(10 / tariff, 6);
    expect(t.svc.world.twins.get(device_id)?.state).toMatchObject({ relay_state: false });

    await advance(600); // no flow through an open relay: nothing more is used or charged
    expect((await view(device_id)).balance_exact.units).toBe(cut.balance_exact.units);

    ok(
      await t.sim('POST', `/devices/${device_id}/recharge`, {
        amount: 100,
        transaction_id: 'cutoff-recharge-1',
      }),
    );
    const back = await view(device_id);
    expect(back).toMatchObject({ relay_state: true, balance: 99 });
    // The meter was credited directly; the service hears its new state over MQTT just after.
    await expect
      .poll(() => t.svc.world.twins.get(device_id)?.state, { timeout: 2_000, interval: 5 })
      .toMatchObject({ relay_state: true, balance: 99 });
    expect(BigInt(back.balance_exact.units)).toBe(units + 100n * UNITS_PER_PAISE);
  });

  it('keeps an offline meter’s readings and uploads them all when it reconnects, so history has no gap [MC-7.6]', async () => {
    const { device_id } = await provision(t.sim, {
      account_id: accountId,
      mode: 'postpaid',
      load_watts: 300,
      telemetry_period_s: PERIOD_S,
    });
    ok(await t.sim('POST', `/devices/${device_id}/online`, { online: false }));
    const { from, to } = await advance(2 * 3600);
    const fromMs = Date.parse(from);
    const toMs = Date.parse(to);
    expect(storedTimes(device_id, fromMs, toMs)).toEqual([]);
    expect(ok(await t.sim<{ pending_samples: number }>('GET', `/devices/${device_id}`)).pending_samples).toBe(
      120,
    );

    ok(await t.sim('POST', `/devices/${device_id}/online`, { online: true }));
    const periodic = () => storedTimes(device_id, fromMs, toMs).filter((ts) => ts % 60_000 === 0);
    await expect.poll(() => periodic().length, { timeout: 5_000, interval: 20 }).toBe(120);
    const times = periodic();
    expect(times.slice(1).every((ts, j) => ts - times[j]! === 60_000)).toBe(true);
    // [MC-6.7] and the reading of the reconnection, at the instant it happened
    expect(storedTimes(device_id, fromMs, toMs).at(-1)).toBe(toMs);
  });
});
