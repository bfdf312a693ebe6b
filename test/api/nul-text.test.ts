// [spec-decisions 149] A NUL character (U+0000) in any text the API takes (names, descriptions, udfs,
// query and path values, keys) is refused with 422 validation_error naming the field, on both stores:
// PostgreSQL's text cannot hold it (it was a 500 there, stored on SQLite). One mechanism, the request
// validator (src/http/validation.ts), so no route or field can forget it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbBackends, freshDb } from '../helpers/db.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { invalid, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

const NUL = 'Block\u0000A';
const MSG = 'String should not contain the NUL character (U+0000)';

describe.each(await dbBackends())('NUL in text on $name [spec-decisions 149]', ({ name }) => {
  let t: TestService;
  let v2: V2;
  let a: Tenant;
  let remove: () => Promise<void>;

  beforeAll(async () => {
    const db = await freshDb(name);
    remove = db.remove;
    t = await startTestService({ speed: 0, db: db.db });
    v2 = v2Client(t.svc.httpUrl);
    a = await tenant(t.sim, { model: 'basic' });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    await remove?.();
  });

  /** A /sim/v1 call's validation items. */
  async function simInvalid(method: 'POST' | 'PUT', path: string, body: unknown) {
    const res = await t.sim(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.error?.code).toBe('validation_error');
    return res.body.error?.detail as { loc: string[]; msg: string }[];
  }

  it.each([
    ['POST /accounts name', '/accounts', () => ({ name: NUL }), ['name']],
    ['POST /spaces name', '/spaces', () => ({ account_id: a.accountId, name: NUL }), ['name']],
    [
      'POST /spaces description',
      '/spaces',
      () => ({ account_id: a.accountId, name: 'B', description: NUL }),
      ['description'],
    ],
    ['POST /spaces udf3', '/spaces', () => ({ account_id: a.accountId, name: 'B', udf3: NUL }), ['udf3']],
    ['POST /devices name', '/devices', () => ({ account_id: a.accountId, name: NUL }), ['name']],
    [
      'POST /devices description (external)',
      '/devices',
      () => ({ account_id: a.accountId, external: true, description: `x${NUL}` }),
      ['description'],
    ],
    ['POST /devices udf5', '/devices', () => ({ account_id: a.accountId, udf5: '\u0000' }), ['udf5']],
  ] as const)('/sim/v1 %s → 422 naming the field', async (_n, path, body, loc) => {
    expect(await simInvalid('POST', path, body())).toEqual([{ loc: [...loc], msg: MSG }]);
  });

  it.each([
    ['PUT /spaces/{id}/ description', () => `/spaces/${a.spaceId}/`, { description: NUL }, ['description']],
    ['PUT /spaces/{id}/ name', () => `/spaces/${a.spaceId}/`, { name: NUL }, ['name']],
    ['PUT /devices/{id}/ udf1', () => `/devices/${a.deviceId}/`, { udf1: NUL }, ['udf1']],
    ['PUT /devices/{id}/ name', () => `/devices/${a.deviceId}/`, { name: NUL }, ['name']],
  ] as const)('v2 %s → 422 naming the field, nothing changed', async (_n, path, body, loc) => {
    const res = await v2('PUT', path(), body, a.key);
    expect(invalid(res)).toEqual([{ loc: [...loc], msg: MSG }]);
  });

  it('v2 POST /devices/{id}/wifi with NUL in the SSID → 422 naming it; the meter is not asked', async () => {
    const res = await v2('POST', `/devices/${a.deviceId}/wifi`, { ssid: NUL, password: 'x' }, a.key);
    expect(invalid(res)).toEqual([{ loc: ['ssid'], msg: MSG }]);
  });

  it('a refused PUT leaves the space as it was', async () => {
    const before = await v2<{ name: string }>('GET', `/spaces/${a.spaceId}/`, undefined, a.key);
    invalid(await v2('PUT', `/spaces/${a.spaceId}/`, { name: 'New', description: NUL }, a.key));
    const after = await v2<{ name: string }>('GET', `/spaces/${a.spaceId}/`, undefined, a.key);
    expect(after.body.data).toEqual(before.body.data);
  });

  it('a NUL in a path or query value, or in a key, is named too (never a 500)', async () => {
    expect(invalid(await v2('GET', `/devices/${a.deviceId}%00/`, undefined, a.key))).toEqual([
      { loc: ['device_id'], msg: MSG },
    ]);
    const q = await v2(
      'GET',
      `/devices/${a.deviceId}/metrics/history?property_id=energy%00&from_date=2026-01-01&to_date=2026-01-02&interval=1d`,
      undefined,
      a.key,
    );
    expect(invalid(q)).toContainEqual({ loc: ['property_id'], msg: MSG });
    const k = await v2('PUT', `/devices/${a.deviceId}/`, { name: 'ok', 'x\u0000': 1 }, a.key);
    expect(invalid(k)).toEqual([{ loc: ['x\u0000'], msg: MSG }]);
  });

  it('text without NUL, even other control characters, is stored and read back as sent', async () => {
    const text = 'Block\u0001A \u00e9\ud83d\ude00';
    const res = await v2<{ name: string }>('PUT', `/spaces/${a.spaceId}/`, { name: text }, a.key);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const back = await v2<{ name: string }>('GET', `/spaces/${a.spaceId}/`, undefined, a.key);
    expect(back.body.data?.name).toBe(text);
  });
});
