// World snapshot files and reset through the real service (issue 12 §2): a snapshot exported from one
// service is imported into another and restored there the same; a file that is not one is a 422; a
// reset empties the world but keeps the clock and the admin token.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ok, startTestService, type TestService } from '../helpers/service.ts';
import { failed, invalid, type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

const START = Date.parse('2026-01-01T00:00:00+05:30');

let t: TestService;
let u: TestService;
let v2: V2;
let a: Tenant;

beforeAll(async () => {
  t = await startTestService({ speed: 0, clockStart: START });
  u = await startTestService({ speed: 0, clockStart: START + 10 * 86_400_000 });
  v2 = v2Client(t.svc.httpUrl);
  a = await tenant(t.sim, { balance: 2_500, load_watts: 500, backfill_days: 1 });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await u?.close();
});

const raw = (
  svc: TestService,
  method: string,
  path: string,
  body?: Uint8Array,
  type = 'application/octet-stream',
) =>
  fetch(`${svc.svc.httpUrl}/sim/v1${path}`, {
    method,
    headers: { 'x-admin-token': ADMIN_TOKEN, ...(body ? { 'content-type': type } : {}) },
    body,
  });

describe('snapshot files', () => {
  it('exported from one service, imported into another and restored: the same device answers the same [spec-decisions 110, 115]', async () => {
    ok(await t.sim('POST', '/snapshots', { name: 'moving' }), 201);
    const device = await v2('GET', `/devices/${a.deviceId}/`, undefined, a.key);
    const res = await raw(t, 'GET', '/snapshots/moving/export');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toMatch(
      /attachment; filename="moving\.meterstack\.sqlite"/,
    );
    const file = new Uint8Array(await res.arrayBuffer());
    expect(Buffer.from(file.subarray(0, 15)).toString()).toBe('SQLite format 3');

    const imported = await raw(u, 'POST', '/snapshots/import?name=arrived', file);
    expect(imported.status).toBe(201);
    expect(((await imported.json()) as { data: unknown }).data).toMatchObject({
      name: 'arrived',
      devices: 1,
    });
    ok(await u.sim('POST', '/snapshots/arrived/restore'));
    const there = await v2Client(u.svc.httpUrl)('GET', `/devices/${a.deviceId}/`, undefined, a.key);
    expect({ status: there.status, data: there.body.data }).toEqual({
      status: device.status,
      data: device.body.data,
    });
    expect(ok(await u.sim<{ now_ms: number }>('GET', '/clock')).now_ms).toBe(START);

    // A taken name is a conflict; a file that is not a snapshot is a validation_error; no body either.
    failed(
      (await raw(u, 'POST', '/snapshots/import?name=arrived', file).then(envelope)) as never,
      409,
      'conflict',
    );
    const junk = new TextEncoder().encode('not a snapshot at all');
    invalid((await raw(u, 'POST', '/snapshots/import?name=junk', junk).then(envelope)) as never);
    invalid((await raw(u, 'POST', '/snapshots/import?name=bad%20name', file).then(envelope)) as never);
    failed((await raw(t, 'GET', '/snapshots/nope/export').then(envelope)) as never, 404, 'not_found');
    expect(ok(await u.sim<{ name: string }[]>('GET', '/snapshots')).map((s) => s.name)).toEqual(['arrived']);
  }, 60_000);
});

describe('POST /sim/v1/reset', () => {
  it('empties accounts, keys, spaces, devices, meters, ledger and readings; the clock and the admin token stay [spec-decisions 113]', async () => {
    const clock = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
    const done = ok(await t.sim<{ devices_removed: number }>('POST', '/reset'));
    expect(done.devices_removed).toBe(1);
    failed(await v2('GET', '/spaces/', undefined, a.key), 401, 'authentication_error');
    expect((await t.sim('GET', `/devices/${a.deviceId}`)).status).toBe(404);
    expect(ok(await t.sim<unknown[]>('GET', '/devices'))).toEqual([]);
    expect(ok(await t.sim<{ meters: number }>('GET', '/ledger')).meters).toBe(0);
    expect(ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms).toBe(clock);
    // The world works again from empty; snapshots are kept and can bring the old world back.
    const b = await tenant(t.sim, {});
    expect((await v2('GET', `/devices/${b.deviceId}/`, undefined, b.key)).status).toBe(200);
    ok(await t.sim('POST', '/snapshots/moving/restore'));
    expect((await v2('GET', `/devices/${a.deviceId}/`, undefined, a.key)).status).toBe(200);
  }, 60_000);
});

async function envelope(res: Response) {
  return { status: res.status, body: await res.json() };
}
