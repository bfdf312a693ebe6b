// Request validation (spec §7 validation_error, §4 history rules 4–6, §8 limits): every failure is 422
// validation_error whose detail lists {loc, msg}; the meter is never asked. Unknown body fields are
// never applied (no mass assignment).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type Device,
  data,
  failed,
  invalid,
  meterView,
  type Space,
  type Tenant,
  tenant,
  type V2,
  v2Client,
} from '../helpers/v2.ts';

let t: TestService;
let v2: V2;
let a: Tenant;

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  v2 = v2Client(t.svc.httpUrl);
  a = await tenant(t.sim, { model: 'basic' });
});
afterAll(() => t.close());

const dev = (path: string) => `/devices/${a.deviceId}/${path}`;

describe('bodies', () => {
  const cases: [string, string, string, unknown, { loc: string[]; msg?: RegExp }][] = [
    ['relay: missing state', 'PUT', 'relay', {}, { loc: ['state'] }],
    [
      'relay: state as the string "true"',
      'PUT',
      'relay',
      { state: 'true' },
      { loc: ['state'], msg: /boolean/ },
    ],
    ['relay: state 1', 'PUT', 'relay', { state: 1 }, { loc: ['state'] }],
    ['relay: body a JSON array', 'PUT', 'relay', [true], { loc: ['body'] }],
    ['mode: missing', 'PUT', 'mode', {}, { loc: ['mode'] }],
    ['mode: out of the enum', 'PUT', 'mode', { mode: 'free' }, { loc: ['mode'] }],
    ['mode: UPPERCASE is not the request form', 'PUT', 'mode', { mode: 'PREPAID' }, { loc: ['mode'] }],
    ['eb tariff: missing', 'PUT', 'tariffs/eb', {}, { loc: ['tariff'] }],
    ['eb tariff: negative', 'PUT', 'tariffs/eb', { tariff: -1 }, { loc: ['tariff'] }],
    ['eb tariff: not an integer', 'PUT', 'tariffs/eb', { tariff: 8.5 }, { loc: ['tariff'] }],
    ['eb tariff: a numeric string', 'PUT', 'tariffs/eb', { tariff: '800' }, { loc: ['tariff'] }],
    ['dg tariff: absurd (> 100000)', 'PUT', 'tariffs/dg', { tariff: 100_001 }, { loc: ['tariff'] }],
    ['dg tariff: null', 'PUT', 'tariffs/dg', { tariff: null }, { loc: ['tariff'] }],
    ['active tariff: 3', 'PUT', 'tariffs/active', { active_tariff: 3 }, { loc: ['active_tariff'] }],
    ['active tariff: "1"', 'PUT', 'tariffs/active', { active_tariff: '1' }, { loc: ['active_tariff'] }],
    ['gateway: missing state', 'PUT', 'payments/gateway', {}, { loc: ['state'] }],
    ['gateway: state "false"', 'PUT', 'payments/gateway', { state: 'false' }, { loc: ['state'] }],
    ['wifi: missing ssid', 'POST', 'wifi', { password: 'x' }, { loc: ['ssid'] }],
    ['wifi: missing password', 'POST', 'wifi', { ssid: 'x' }, { loc: ['password'] }],
    [
      'wifi: ssid of 33 characters',
      'POST',
      'wifi',
      { ssid: 's'.repeat(33), password: 'x' },
      { loc: ['ssid'], msg: /at most 32 characters/ },
    ],
    [
      'wifi: password of 65 characters',
      'POST',
      'wifi',
      { ssid: 'home', password: 'p'.repeat(65) },
      { loc: ['password'], msg: /at most 64 characters/ },
    ],
    ['wifi: empty ssid', 'POST', 'wifi', { ssid: '', password: 'x' }, { loc: ['ssid'] }],
    ['device: empty body', 'PUT', '', {}, { loc: ['body'] }],
    ['device: name not a string', 'PUT', '', { name: 5 }, { loc: ['name'] }],
    ['device: empty name', 'PUT', '', { name: '' }, { loc: ['name'] }],
  ];
  it.each(cases)('%s → 422', async (_why, method, path, body, want) => {
    const items = invalid(await v2(method as 'PUT', dev(path), body, a.key));
    const item = items.find((i) => i.loc.join('.') === want.loc.join('.'));
    expect(item, JSON.stringify(items)).toBeDefined();
    if (want.msg) expect(item!.msg).toMatch(want.msg);
  });

  it('space: empty body and a wrong type → 422', async () => {
    expect(invalid(await v2('PUT', `/spaces/${a.spaceId}/`, {}, a.key))[0]!.loc).toEqual(['body']);
    expect(invalid(await v2('PUT', `/spaces/${a.spaceId}/`, { description: 7 }, a.key))[0]!.loc).toEqual([
      'description',
    ]);
  });

  it('malformed JSON, and no body at all, → 422 at [body]', async () => {
    for (const raw of ['{"state": tru', '{', 'true false']) {
      const items = invalid(await v2('PUT', dev('relay'), undefined, a.key, { raw }));
      expect(items).toEqual([{ loc: ['body'], msg: expect.stringMatching(/JSON/) }]);
    }
    expect(invalid(await v2('PUT', dev('relay'), undefined, a.key))[0]!.loc).toEqual(['body']);
  });

  it('a body that is not JSON → 415 unsupported_media_type; one over 64 KiB → 413; both in the envelope', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      const res = await v2('PUT', dev('relay'), undefined, a.key, {
        raw: 'state=true',
        headers: { 'content-type': type },
      });
      failed(res, 415, 'unsupported_media_type');
    }
    const big = { state: true, note: 'x'.repeat(70_000) };
    failed(await v2('PUT', dev('relay'), big, a.key), 413, 'payload_too_large');
    const charset = { headers: { 'content-type': 'application/json; charset=utf-8' }, raw: '{"state":true}' };
    expect((await v2('PUT', dev('relay'), undefined, a.key, charset)).status).toBe(200);
  });

  it('path parameters: a space_id that is not a positive integer, a device_id over 64 characters → 422', async () => {
    for (const id of ['abc', '0', '-1', '1.5']) {
      expect(invalid(await v2('GET', `/spaces/${id}/`, undefined, a.key)), id).toEqual([
        { loc: ['space_id'], msg: 'Input should be a positive integer' },
      ]);
    }
    expect(invalid(await v2('GET', `/devices/${'x'.repeat(65)}/`, undefined, a.key))[0]!.loc).toEqual([
      'device_id',
    ]);
  });

  it('an SSID of exactly 32 characters and a password of exactly 64 are accepted', async () => {
    const body = { ssid: 's'.repeat(32), password: 'p'.repeat(64) };
    expect(data(await v2('POST', dev('wifi'), body, a.key), 'WiFi settings updated')).toBe(true);
  });

  it('lengths count characters, not UTF-16 code units, and UTF-8 bytes too [MC-3.9]: 8 emoji are a valid SSID, 33 are not', async () => {
    const ok = { ssid: '📶'.repeat(8), password: '🔑'.repeat(16) };
    expect(data(await v2('POST', dev('wifi'), ok, a.key), 'WiFi settings updated')).toBe(true);
    expect((await meterView(t.sim, a.deviceId)).wifi.ssid).toBe(ok.ssid);
    const items = invalid(await v2('POST', dev('wifi'), { ssid: '📶'.repeat(33), password: '' }, a.key));
    expect(items).toEqual([{ loc: ['ssid'], msg: 'String should have at most 32 characters' }]);
  });

  it('several problems are all listed', async () => {
    const items = invalid(await v2('POST', dev('wifi'), { ssid: 's'.repeat(40), password: 3 }, a.key));
    expect(items.map((i) => i.loc[0]).sort()).toEqual(['password', 'ssid']);
  });

  it('a rejected tariff leaves the meter as it was', async () => {
    await v2('PUT', dev('tariffs/eb'), { tariff: -5 }, a.key);
    await v2('PUT', dev('tariffs/dg'), { tariff: 1e9 }, a.key);
    expect(await meterView(t.sim, a.deviceId)).toMatchObject({ eb_tariff: 800, dg_tariff: 2000 });
  });
});

describe('history query (endpoint 12)', () => {
  const history = (qs: string) => v2('GET', dev(`metrics/history?${qs}`), undefined, a.key);
  const q = (o: Record<string, string>) =>
    new URLSearchParams({
      property_id: 'energy',
      from_date: '2026-01-05',
      to_date: '2026-01-06',
      ...o,
    }).toString();

  it('an unknown property_id → [property_id] "Invalid property ID"', async () => {
    expect(invalid(await history(q({ property_id: 'frequency' })))).toEqual([
      { loc: ['property_id'], msg: 'Invalid property ID' },
    ]);
  });

  it('a property the meter’s model does not measure (current on a basic meter) → "Invalid property ID"', async () => {
    expect(invalid(await history(q({ property_id: 'current' })))).toEqual([
      { loc: ['property_id'], msg: 'Invalid property ID' },
    ]);
  });

  it('missing parameters are each listed', async () => {
    const items = invalid(await history(''));
    expect(items.map((i) => i.loc[0]).sort()).toEqual(['from_date', 'property_id', 'to_date']);
  });

  it.each([
    '2026-1-05',
    '20260105',
    '2026-01-5',
    '05-01-2026',
    '2026/01/05',
    '2026-01-05T00:00',
    ' 2026-01-05',
    '',
  ])('from_date %j is not strictly YYYY-MM-DD → [from_date], a format message', async (bad) => {
    expect(invalid(await history(q({ from_date: bad })))).toEqual([
      { loc: ['from_date'], msg: 'Input should be a date in the format YYYY-MM-DD' },
    ]);
    expect(invalid(await history(q({ to_date: bad })))).toEqual([
      { loc: ['to_date'], msg: 'Input should be a date in the format YYYY-MM-DD' },
    ]);
  });

  it.each(['2026-02-30', '2026-13-01', '2026-00-10', '2025-02-29', '2026-04-31'])(
    '%s is not a calendar date → 422 at its field',
    async (bad) => {
      expect(invalid(await history(q({ from_date: bad, to_date: '2026-12-31' })))).toEqual([
        { loc: ['from_date'], msg: expect.stringContaining('should be a valid calendar date') },
      ]);
      expect(invalid(await history(q({ from_date: '2025-01-01', to_date: bad })))[0]!.loc).toEqual([
        'to_date',
      ]);
    },
  );

  it.each(['2024-02-29', '2000-02-29', '0099-12-31', '9999-12-31'])('%s is a date', async (day) => {
    expect(data(await history(q({ from_date: day, to_date: day })))).toMatchObject({ readings: [] });
  });

  it('from_date after to_date → 422', async () => {
    expect(invalid(await history(q({ from_date: '2026-01-07', to_date: '2026-01-06' })))).toEqual([
      { loc: ['from_date'], msg: expect.any(String) },
    ]);
  });

  it('at most 366 days: 2024 (a leap year) whole is allowed, one more day is not', async () => {
    expect(
      (await history(q({ from_date: '2024-01-01', to_date: '2024-12-31', interval: '15m' }))).status,
    ).toBe(200);
    expect(invalid(await history(q({ from_date: '2024-01-01', to_date: '2025-01-01' })))).toEqual([
      { loc: ['to_date'], msg: expect.stringContaining('366') },
    ]);
  });

  it.each(['5m', '1h', '1D', '60'])('interval %j → [interval]', async (bad) => {
    expect(invalid(await history(q({ interval: bad })))[0]!.loc).toEqual(['interval']);
  });
});

describe('no mass assignment', () => {
  it('PUT /devices/{id}/ changes name, description and udf1 only', async () => {
    const b = await tenant(t.sim, { udf2: 'keep-2' });
    const before = data(await v2<Device>('GET', `/devices/${b.deviceId}/`, undefined, b.key));
    const body = {
      name: 'New',
      description: 'desc',
      udf1: 'u1',
      device_id: 'HIJACK',
      space_id: 999,
      space: { id: 999 },
      balance: 999_999,
      active_mode: 'postpaid',
      udf2: 'changed',
      udf5: 'changed',
      public_access: true,
      public_hash: 'h',
      is_shared: true,
      is_online: false,
      has_relay: false,
    };
    expect(data(await v2('PUT', `/devices/${b.deviceId}/`, body, b.key), 'device updated')).toBe(true);
    const after = data(await v2<Device>('GET', `/devices/${b.deviceId}/`, undefined, b.key));
    expect(after).toEqual({ ...before, name: 'New', description: 'desc', udf1: 'u1' });
    expect((await v2('GET', '/devices/HIJACK/', undefined, b.key)).status).toBe(400);
    expect((await meterView(t.sim, b.deviceId)).balance).toBe(before.balance);
  });

  it('PUT /spaces/{id}/ changes name, description and udf1 only', async () => {
    const b = await tenant(t.sim);
    const before = data(await v2<Space>('GET', `/spaces/${b.spaceId}/`, undefined, b.key));
    const body = { name: 'N', space_id: 77, udf2: 'x', udf3: 'y', devices: [], tags: ['t'], account_id: 1 };
    const updated = data(await v2<Space>('PUT', `/spaces/${b.spaceId}/`, body, b.key), 'space updated');
    expect(updated).toEqual({ ...before, name: 'N' });
    expect(data(await v2<Space>('GET', `/spaces/${b.spaceId}/`, undefined, b.key))).toEqual(updated);
  });
});
