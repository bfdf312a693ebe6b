// State changes (spec §3) made through the v2 API, or by time passing on the virtual clock, and seen
// through the v2 API: mode, relay, prepaid cut-off and recharge, relay_off overriding a relay-on
// command, DG billing checked to the exact balance unit, WiFi configuration mode, gateway and tariffs.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_PASSWORD, CONFIG_SSID } from '../../simulator/meter/wifi.ts';
import { ok, startTestService, type TestService } from '../helpers/service.ts';
import {
  type Device,
  data,
  type Metrics,
  meterView,
  type Space,
  type Tenant,
  tenant,
  type V2,
  v2Client,
  type Wifi,
} from '../helpers/v2.ts';

let t: TestService;
let v2: V2;

beforeAll(async () => {
  // speed 0: only /clock/advance moves time, so energy and money can be computed exactly.
  t = await startTestService({ speed: 0 });
  v2 = v2Client(t.svc.httpUrl);
});
afterAll(() => t.close());

const advance = async (seconds: number) => ok(await t.sim('POST', '/clock/advance', { seconds }));
const metrics = async (a: Tenant) =>
  data(await v2<Metrics>('GET', `/devices/${a.deviceId}/metrics`, undefined, a.key));
const device = async (a: Tenant) =>
  data(await v2<Device>('GET', `/devices/${a.deviceId}/`, undefined, a.key));
const put = async (a: Tenant, path: string, body: unknown) =>
  data(await v2('PUT', `/devices/${a.deviceId}/${path}`, body, a.key));

describe('mode', () => {
  it.each(['postpaid', 'measurement', 'relay_off', 'prepaid'])(
    '→ %s: active_mode lowercase in the record and the space, mode UPPERCASE in metrics',
    async (mode) => {
      const a = await tenant(t.sim, { mode: mode === 'prepaid' ? 'postpaid' : 'prepaid', balance: 100 });
      expect(await put(a, 'mode', { mode })).toBe(true);
      expect((await device(a)).active_mode).toBe(mode);
      const space = data(await v2<Space>('GET', `/spaces/${a.spaceId}/`, undefined, a.key));
      expect(space.devices[0]!.active_mode).toBe(mode);
      expect((await metrics(a)).mode).toBe(mode.toUpperCase());
    },
  );
});

describe('relay', () => {
  it('PUT relay false then true → relay_state follows', async () => {
    const a = await tenant(t.sim, { balance: 1000, load_watts: 800 });
    expect((await metrics(a)).relay_state).toBe(true);
    await put(a, 'relay', { state: false });
    expect(await metrics(a)).toMatchObject({ relay_state: false, active_power: 0 });
    await put(a, 'relay', { state: true });
    expect(await metrics(a)).toMatchObject({ relay_state: true, active_power: 800 });
  });

  it('[M-32] a restored relay reads the load at once, not after the next telemetry period (issue 20 item 16)', async () => {
    const a = await tenant(t.sim, { balance: 1000, load_watts: 800, telemetry_period_s: 60 });
    await put(a, 'relay', { state: false });
    await advance(120); // periodic samples while open: 0 W
    expect(await metrics(a)).toMatchObject({ relay_state: false, active_power: 0 });
    await put(a, 'relay', { state: true });
    expect(await metrics(a)).toMatchObject({ relay_state: true, active_power: 800 });
    const power = (await device(a)).readings.find((r) => r.property_id === 'active_power');
    expect(power?.value).toBe(800);
    // And a recharge that lifts a prepaid cut-off, the other restore.
    const b = await tenant(t.sim, { mode: 'prepaid', balance: 10, load_watts: 1000, telemetry_period_s: 60 });
    await advance(120); // cut off after 45 s; the next samples read 0 W
    expect(await metrics(b)).toMatchObject({ relay_state: false, active_power: 0 });
    ok(
      await t.sim('POST', `/devices/${b.deviceId}/recharge`, { amount: 1000, transaction_id: 'm32-restore' }),
    );
    expect(await metrics(b)).toMatchObject({ relay_state: true, active_power: 1000 });
  });

  it('relay_off overrides a relay-on command; the command takes effect when the mode changes', async () => {
    const a = await tenant(t.sim, { balance: 1000, load_watts: 800 });
    await put(a, 'mode', { mode: 'relay_off' });
    expect((await metrics(a)).relay_state).toBe(false);
    expect(await put(a, 'relay', { state: true })).toBe(true);
    expect(await metrics(a)).toMatchObject({ relay_state: false, mode: 'RELAY_OFF', active_power: 0 });
    await advance(300);
    expect((await metrics(a)).relay_state).toBe(false);
    await put(a, 'mode', { mode: 'postpaid' });
    expect((await metrics(a)).relay_state).toBe(true);
  });
});

describe('prepaid cut-off and recharge', () => {
  it('balance below zero after the clock advances → relay off; recharge → back on', async () => {
    // 10 paise at 800 paise/kWh and 1 kW last 45 s.
    const a = await tenant(t.sim, { mode: 'prepaid', balance: 10, load_watts: 1000 });
    expect((await metrics(a)).relay_state).toBe(true);
    await advance(120);
    const cut = await metrics(a);
    expect(cut).toMatchObject({ relay_state: false, active_power: 0, mode: 'PREPAID' });
    expect(cut.balance).toBeLessThan(0);
    expect(cut.energy).toBe(0.013); // 12.5 Wh and the cut-off's last ms, reported to the Wh [MC-7.7]
    const record = await device(a);
    expect(record).toMatchObject({ active_mode: 'prepaid', balance: cut.balance });
    // Nothing flows while it is cut off.
    await advance(600);
    expect((await metrics(a)).energy).toBe(cut.energy);

    ok(
      await t.sim('POST', `/devices/${a.deviceId}/recharge`, {
        amount: 500,
        transaction_id: `tx-${a.deviceId}`,
      }),
    );
    const back = await metrics(a);
    expect(back).toMatchObject({ relay_state: true, active_power: 1000, balance: cut.balance + 500 });
    expect((await device(a)).balance).toBe(back.balance);
  });

  it('postpaid: the balance goes negative and the relay stays on', async () => {
    const a = await tenant(t.sim, { mode: 'postpaid', balance: 10, load_watts: 1000 });
    await advance(3600);
    const m = await metrics(a);
    expect(m).toMatchObject({ relay_state: true, balance: 10 - 800 });
  });

  it('measurement: energy is measured, the balance is untouched', async () => {
    const a = await tenant(t.sim, { mode: 'measurement', balance: 10, load_watts: 1000 });
    const before = await meterView(t.sim, a.deviceId);
    await advance(3600);
    const m = await metrics(a);
    expect(m).toMatchObject({ relay_state: true, balance: 10 });
    expect(m.energy - before.energy_kwh).toBeCloseTo(1, 9);
    expect((await meterView(t.sim, a.deviceId)).balance_exact.units).toBe(before.balance_exact.units);
  });
});

describe('tariffs', () => {
  const MW = 1_500_000; // 1.5 kW in mW
  /** Energy in mW·ms between two meter views, from their kWh readings (exact to well under 1 mW·ms here). */
  const energyMwMs = (kwh: number) => BigInt(Math.round(kwh * 3.6e12));

  it('active tariff 2 bills at the DG rate, to the exact balance unit; back to 1, at the EB rate', async () => {
    const a = await tenant(t.sim, { mode: 'prepaid', balance: 100_000, load_watts: MW / 1000 });
    expect(await put(a, 'tariffs/eb', { tariff: 650 })).toBe(true);
    expect(await put(a, 'tariffs/dg', { tariff: 2300 })).toBe(true);
    expect(await put(a, 'tariffs/active', { active_tariff: 2 })).toBe(true);
    expect(await metrics(a)).toMatchObject({ eb_tariff: 650, dg_tariff: 2300, active_tariff: 2 });

    const billed = async (seconds: number) => {
      const before = await meterView(t.sim, a.deviceId);
      await advance(seconds);
      const after = await meterView(t.sim, a.deviceId);
      const energy = energyMwMs(after.energy_kwh) - energyMwMs(before.energy_kwh);
      expect(energy).toBe(BigInt(MW) * BigInt(seconds * 1000)); // the load ran the whole time
      return { energy, charged: BigInt(before.balance_exact.units) - BigInt(after.balance_exact.units) };
    };

    const dg = await billed(600);
    expect(dg.charged).toBe(2300n * dg.energy);
    await put(a, 'tariffs/active', { active_tariff: 1 });
    const eb = await billed(600);
    expect(eb.charged).toBe(650n * eb.energy);
    // 0.25 kWh at each rate, in paise.
    expect(await metrics(a)).toMatchObject({ balance: 100_000 - 575 - 162 - 1, active_tariff: 1 });
  });
});

describe('payment gateway', () => {
  it('PUT gateway true/false → pg_enabled', async () => {
    const a = await tenant(t.sim);
    expect((await metrics(a)).pg_enabled).toBe(false);
    await put(a, 'payments/gateway', { state: true });
    expect((await metrics(a)).pg_enabled).toBe(true);
    await put(a, 'payments/gateway', { state: false });
    expect((await metrics(a)).pg_enabled).toBe(false);
  });
});

describe('WiFi configuration mode', () => {
  const wifi = async (a: Tenant) =>
    data(await v2<Wifi>('GET', `/devices/${a.deviceId}/wifi`, undefined, a.key));

  it('holding the button 5 s → Secondary with the fixed config network; POST wifi sets the primary and leaves it', async () => {
    const a = await tenant(t.sim);
    const primary = await wifi(a);
    expect(primary.type).toBe('Primary');

    ok(await t.sim('POST', `/devices/${a.deviceId}/button`, { hold_seconds: 2 }));
    expect(await wifi(a)).toEqual(primary); // a short press does nothing

    ok(await t.sim('POST', `/devices/${a.deviceId}/button`, { hold_seconds: 5 }));
    expect(await wifi(a)).toEqual({
      ssid: CONFIG_SSID,
      password: CONFIG_PASSWORD,
      rssi: expect.any(Number),
      type: 'Secondary',
    });

    const body = { ssid: 'NewHome', password: 'n3w-pass' };
    expect(data(await v2('POST', `/devices/${a.deviceId}/wifi`, body, a.key), 'WiFi settings updated')).toBe(
      true,
    );
    expect(await wifi(a)).toMatchObject({ ...body, type: 'Primary' });
    expect((await meterView(t.sim, a.deviceId)).wifi).toMatchObject({ ...body, config_mode: false });
  });
});
