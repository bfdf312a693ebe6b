// The success path of all 15 v2 endpoints through real HTTP against a running service with virtual
// meters: each response's `data` shape, field names, types and casing (spec §2, §4), and the envelope
// with the spec's message wording and an ISO 8601 +05:30 timestamp with milliseconds.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, ok, provision, startTestService, type TestService } from '../helpers/service.ts';
import {
  type Device,
  data,
  type History,
  type Metrics,
  type Space,
  type Tenant,
  tenant,
  type V2,
  v2Client,
  type Wifi,
} from '../helpers/v2.ts';

let t: TestService;
let v2: V2;
let a: Tenant;

type Udfs = Record<'udf1' | 'udf2' | 'udf3' | 'udf4' | 'udf5', string | null>;
const UDFS: Udfs = { udf1: 'asset-17', udf2: 'floor-3', udf3: null, udf4: 'x', udf5: null };

beforeAll(async () => {
  // speed 0: the clock moves only when a test advances it, so readings and balances are exact.
  t = await startTestService({ speed: 0 });
  v2 = v2Client(t.svc.httpUrl);
  a = await tenant(t.sim, { model: 'full', load_watts: 1000, balance: 5000, name: 'Flat 101', ...UDFS });
  // Two minutes of telemetry, so the device record has current readings.
  ok(await t.sim('POST', '/clock/advance', { seconds: 120 }));
});
afterAll(() => t.close());

const summaryOf = (deviceId: string, name: string, mode: string, udfs: Udfs = UDFS) => ({
  device_id: deviceId,
  name,
  active_mode: mode,
  ...udfs,
});

describe('spaces (endpoints 1–3)', () => {
  it('1. GET /spaces/ lists every space of the account with its device summaries, and no one else’s', async () => {
    const { account_id, api_key } = await newAccount(t.sim);
    const nulls = { udf1: null, udf2: null, udf3: null, udf4: null, udf5: null };
    const s1 = ok(
      await t.sim<{ space_id: number }>('POST', '/spaces', {
        account_id,
        name: 'Tower',
        description: 'Main tower',
        udf1: 'T-1',
      }),
    );
    const s2 = ok(await t.sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Empty' }));
    const d1 = await provision(t.sim, { account_id, space_id: s1.space_id, name: 'M1', mode: 'postpaid' });
    const d2 = await provision(t.sim, { account_id, space_id: s1.space_id, name: 'M2', udf3: 'u3' });
    await provision(t.sim, { account_id, name: 'spare, in no space' });

    const spaces = data(await v2<Space[]>('GET', '/spaces/', undefined, api_key));
    expect(spaces).toEqual([
      {
        space_id: s1.space_id,
        name: 'Tower',
        description: 'Main tower',
        devices: [
          summaryOf(d1.device_id, 'M1', 'postpaid', nulls),
          summaryOf(d2.device_id, 'M2', 'prepaid', { ...nulls, udf3: 'u3' }),
        ],
        tags: [],
        ...nulls,
        udf1: 'T-1',
      },
      { space_id: s2.space_id, name: 'Empty', description: '', devices: [], tags: [], ...nulls },
    ]);
  });

  it('2. GET /spaces/{id}/ returns one Space', async () => {
    const space = data(await v2<Space>('GET', `/spaces/${a.spaceId}/`, undefined, a.key));
    expect(space).toEqual({
      space_id: a.spaceId,
      name: 'Block A',
      description: '',
      devices: [summaryOf(a.deviceId, 'Flat 101', 'prepaid')],
      tags: [],
      udf1: null,
      udf2: null,
      udf3: null,
      udf4: null,
      udf5: null,
    });
    expect(Number.isInteger(space.space_id)).toBe(true);
  });

  it('3. PUT /spaces/{id}/ answers the updated Space, "space updated"', async () => {
    const b = await tenant(t.sim);
    const res = await v2<Space>(
      'PUT',
      `/spaces/${b.spaceId}/`,
      { name: 'Block B', description: 'East', udf1: 'B' },
      b.key,
    );
    const space = data(res, 'space updated');
    expect(space).toEqual({
      space_id: b.spaceId,
      name: 'Block B',
      description: 'East',
      devices: [summaryOf(b.deviceId, b.deviceId, 'prepaid', nullUdfs())],
      tags: [],
      udf1: 'B',
      udf2: null,
      udf3: null,
      udf4: null,
      udf5: null,
    });
    // Stored, not only echoed; and a partial update leaves the other fields alone.
    const partial = data(
      await v2<Space>('PUT', `/spaces/${b.spaceId}/`, { udf1: null }, b.key),
      'space updated',
    );
    expect(partial).toMatchObject({ name: 'Block B', description: 'East', udf1: null });
    expect(data(await v2('GET', `/spaces/${b.spaceId}`, undefined, b.key))).toEqual(partial);
  });
});

function nullUdfs() {
  return { udf1: null, udf2: null, udf3: null, udf4: null, udf5: null };
}

const FULL_PROPERTIES = [
  ['energy', 'cumulative', 'kWh'],
  ['active_power', 'instantaneous', 'W'],
  ['voltage', 'instantaneous', 'V'],
  ['current', 'instantaneous', 'A'],
  ['power_factor', 'instantaneous', ''],
  ['apparent_power', 'instantaneous', 'VA'],
  ['reactive_power', 'instantaneous', 'var'],
];

describe('devices (endpoints 4–6)', () => {
  it('4. GET /devices/{id}/ returns the full Device with readings', async () => {
    const device = data(await v2<Device>('GET', `/devices/${a.deviceId}/`, undefined, a.key));
    expect(device).toEqual({
      device_id: a.deviceId,
      name: 'Flat 101',
      description: '',
      space: { id: a.spaceId, name: 'Block A', description: '' },
      public_access: false,
      public_hash: null,
      active_mode: 'prepaid',
      balance: expect.any(Number),
      has_relay: true,
      is_online: true,
      is_shared: false,
      readings: expect.any(Array),
      tags: [],
      ...UDFS,
    });
    expect(Number.isInteger(device.balance)).toBe(true);
    expect(device.readings.map((r) => [r.property_id, r.context_type, r.unit])).toEqual(FULL_PROPERTIES);
    for (const r of device.readings) {
      expect(Object.keys(r).sort()).toEqual(['context_type', 'property_id', 'unit', 'value']);
      expect(typeof r.value).toBe('number');
    }
    const byId = Object.fromEntries(device.readings.map((r) => [r.property_id, r.value]));
    expect(byId.active_power).toBe(1000);
    // Two minutes at 1 kW: the newest sample is the one at the last minute boundary, 1-2 minutes in.
    expect(byId.energy).toBeGreaterThan(1 / 60 - 1e-9);
    expect(byId.energy).toBeLessThanOrEqual(2 / 60 + 1e-9);
  });

  it('4. a basic meter’s readings are energy, active_power and voltage', async () => {
    const b = await tenant(t.sim, { model: 'basic', load_watts: 200, telemetry_period_s: 30 });
    ok(await t.sim('POST', '/clock/advance', { seconds: 60 }));
    const device = data(await v2<Device>('GET', `/devices/${b.deviceId}`, undefined, b.key));
    expect(device.readings.map((r) => [r.property_id, r.context_type, r.unit])).toEqual(
      FULL_PROPERTIES.slice(0, 3),
    );
  });

  it('5. GET /devices/{id}/metrics returns the flattened metrics, read live, mode UPPERCASE', async () => {
    const metrics = data(await v2<Metrics>('GET', `/devices/${a.deviceId}/metrics`, undefined, a.key));
    const meter = ok(await t.sim<Record<string, unknown>>('GET', `/devices/${a.deviceId}`));
    expect(metrics).toEqual({
      device_id: a.deviceId,
      eb_tariff: meter.eb_tariff,
      dg_tariff: meter.dg_tariff,
      active_tariff: 1,
      energy: meter.energy_kwh,
      active_power: 1000,
      voltage: expect.any(Number),
      balance: meter.balance,
      relay_state: true,
      mode: 'PREPAID',
      pg_enabled: false,
    });
    for (const k of ['eb_tariff', 'dg_tariff', 'balance'] as const)
      expect(Number.isInteger(metrics[k])).toBe(true);
  });

  it('6. PUT /devices/{id}/ answers true, "device updated", and the record shows the change', async () => {
    const b = await tenant(t.sim);
    const res = await v2(
      'PUT',
      `/devices/${b.deviceId}/`,
      { name: 'Shop 4', description: 'ground', udf1: 'S4' },
      b.key,
    );
    expect(data(res, 'device updated')).toBe(true);
    expect(data(await v2('GET', `/devices/${b.deviceId}/`, undefined, b.key))).toMatchObject({
      device_id: b.deviceId,
      name: 'Shop 4',
      description: 'ground',
      udf1: 'S4',
    });
  });
});

describe('control (endpoints 7–11, 15): boolean true and the spec’s message', () => {
  const cases: [string, string, unknown, string][] = [
    ['7', 'relay', { state: false }, 'relay state updated'],
    ['8', 'mode', { mode: 'measurement' }, 'mode updated'],
    ['9', 'tariffs/eb', { tariff: 750 }, 'EB tariff updated'],
    ['10', 'tariffs/dg', { tariff: 2100 }, 'DG tariff updated'],
    ['11', 'tariffs/active', { active_tariff: 2 }, 'active tariff updated'],
    ['15', 'payments/gateway', { state: true }, 'payment gateway state updated'],
  ];
  it.each(cases)('%s. PUT /devices/{id}/%s', async (_n, path, body, message) => {
    const b = await tenant(t.sim);
    expect(data(await v2('PUT', `/devices/${b.deviceId}/${path}`, body, b.key), message)).toBe(true);
  });
});

describe('history (endpoint 12)', () => {
  it('returns {device_id, from_date, to_date, readings} with historical readings', async () => {
    const b = await tenant(t.sim, {
      mode: 'postpaid',
      load_watts: 600,
      backfill_days: 1,
      backfill_period_s: 900,
    });
    const clock = ok(await t.sim<{ now: string }>('GET', '/clock'));
    const today = clock.now.slice(0, 10);
    const qs = `property_id=active_power&from_date=${today}&to_date=${today}&interval=60m`;
    const history = data(
      await v2<History>('GET', `/devices/${b.deviceId}/metrics/history?${qs}`, undefined, b.key),
    );
    expect(Object.keys(history)).toEqual(['device_id', 'from_date', 'to_date', 'readings']);
    expect(history).toMatchObject({ device_id: b.deviceId, from_date: today, to_date: today });
    expect(history.readings.length).toBeGreaterThan(0);
    for (const r of history.readings) {
      expect(r).toEqual({
        property_id: 'active_power',
        value: 600,
        unit: 'W',
        timestamp: expect.stringMatching(new RegExp(`^${today}T\\d{2}:59:59\\+05:30$`)),
      });
    }
  });
});

describe('WiFi (endpoints 13–14)', () => {
  it('13. GET /devices/{id}/wifi returns the WiFi status, password in clear', async () => {
    const wifi = data(await v2<Wifi>('GET', `/devices/${a.deviceId}/wifi`, undefined, a.key));
    const meter = ok(
      await t.sim<{ wifi: { ssid: string; password: string; rssi: number } }>(
        'GET',
        `/devices/${a.deviceId}`,
      ),
    );
    expect(wifi).toEqual({
      ssid: meter.wifi.ssid,
      password: meter.wifi.password,
      rssi: meter.wifi.rssi,
      type: 'Primary',
    });
    expect(Number.isInteger(wifi.rssi)).toBe(true);
    expect(wifi.rssi).toBeLessThan(0);
  });

  it('14. POST /devices/{id}/wifi answers true, "WiFi settings updated", and sets the primary network', async () => {
    const b = await tenant(t.sim);
    const res = await v2(
      'POST',
      `/devices/${b.deviceId}/wifi`,
      { ssid: 'Flat-12', password: 'p@ss w0rd' },
      b.key,
    );
    expect(data(res, 'WiFi settings updated')).toBe(true);
    expect(data(await v2('GET', `/devices/${b.deviceId}/wifi`, undefined, b.key))).toMatchObject({
      ssid: 'Flat-12',
      password: 'p@ss w0rd',
      type: 'Primary',
    });
  });
});

describe('paths', () => {
  it('work with and without the trailing slash', async () => {
    for (const path of ['/spaces', '/spaces/', `/spaces/${a.spaceId}`, `/spaces/${a.spaceId}/`]) {
      expect((await v2('GET', path, undefined, a.key)).status, path).toBe(200);
    }
    for (const path of [
      `/devices/${a.deviceId}`,
      `/devices/${a.deviceId}/`,
      `/devices/${a.deviceId}/wifi/`,
    ]) {
      expect((await v2('GET', path, undefined, a.key)).status, path).toBe(200);
    }
    expect(data(await v2('GET', '/spaces', undefined, a.key))).toEqual(
      data(await v2('GET', '/spaces/', undefined, a.key)),
    );
  });

  it('an unknown route answers 404 in the envelope', async () => {
    const res = await v2('GET', '/nothing-here', undefined, a.key);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: 'not_found' } });
  });
});
