// Issue 12 §3: POST /sim/v1/devices/{id}/replace puts a new physical meter (new serial, register from
// zero) behind the same device id. Through the v2 API: name, udfs and space unchanged, energy and its
// history (15-minute buckets, last − first) equal the true consumption across the swap (that of an
// identical meter, made at the same instant, never replaced), also after a restart; the ledger check
// stays clean; no sample is refused as going backwards (MC-7.5). SQLite and PostgreSQL.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeterEvent } from '../../src/events/schemas.ts';
import { type DbBackend, dbBackends, freshDb } from '../helpers/db.ts';
import { ok, startTestService, type TestService } from '../helpers/service.ts';
import { type Device, data, type History, type Tenant, tenant, v2Client } from '../helpers/v2.ts';

interface Replaced {
  device_id: string;
  old_serial: string;
  new_serial: string;
  register_epoch: number;
  balance: number;
  refund: { amount: number; ledger_seq: number } | null;
}
interface SimMeter {
  serial: string;
  register_epoch: number;
  register_kwh: number;
  balance: number;
}

describe.each(await dbBackends())('meter replacement on $name', ({ name }: { name: DbBackend }) => {
  let t: TestService;
  let a: Tenant;
  /** The same meter, made at the same frozen instant, never replaced: the true consumption. */
  let control: string;
  let t0: number;
  let db: { db: string; remove: () => Promise<void> };
  const events: MeterEvent[] = [];

  const start = async () => {
    t = await startTestService({ db: db.db, speed: 0 });
    t.svc.bus.subscribe((e) => events.push(e));
  };
  const advance = (seconds: number) => t.sim('POST', '/clock/advance', { seconds });
  const replace = (body?: unknown) => t.sim<Replaced>('POST', `/devices/${a.deviceId}/replace`, body);
  const sim = async () => ok(await t.sim<SimMeter>('GET', `/devices/${a.deviceId}`));
  const v2 = () => v2Client(t.svc.httpUrl, a.key);
  const energy = async (id = a.deviceId) =>
    data(await v2()<Device>('GET', `/devices/${id}/`)).readings.find((r) => r.property_id === 'energy')
      ?.value;
  const history = async (id = a.deviceId) => {
    const day = (ms: number) => new Date(ms + 19_800_000).toISOString().slice(0, 10);
    const h = data(
      await v2()<History>(
        'GET',
        `/devices/${id}/metrics/history?property_id=energy&from_date=${day(t0)}&to_date=${day(t0 + 86_400_000)}&interval=15m`,
      ),
    );
    return h.readings.map((r) => ({ ts: r.timestamp, value: r.value }));
  };
  /** Energy and history of the replaced meter are those of the control meter (the true consumption). */
  const sameAsControl = async () => {
    expect(await energy()).toBe(await energy(control));
    const [h, c] = [await history(), await history(control)];
    // The same buckets, first and last values; only the swap's bucket may differ: its last sample is the
    // old register's final reading at the swap instant (true, and later than the control's last there).
    expect(h.map((p) => p.ts)).toEqual(c.map((p) => p.ts));
    expect([h[0], h.at(-1)]).toEqual([c[0], c.at(-1)]);
    expect(h.filter((p, i) => p.value !== c[i]!.value).length).toBeLessThanOrEqual(1);
    expect(h.length).toBeGreaterThan(2);
    expect(h.map((p) => p.value)).toEqual(h.map((p) => p.value).sort((x, y) => x - y));
    return h;
  };
  const ledgerClean = async () =>
    expect(ok(await t.sim<{ disagreements: unknown[] }>('GET', '/ledger')).disagreements).toEqual([]);

  beforeAll(async () => {
    db = await freshDb(name);
    await start();
    const meter = { mode: 'prepaid', balance: 100_000, load_watts: 1000, telemetry_period_s: 300 };
    a = await tenant(t.sim, { name: 'Kitchen', udf1: 'flat-12', ...meter });
    const made = ok(
      await t.sim<{ device_id: string }>('POST', '/devices', {
        account_id: a.accountId,
        space_id: a.spaceId,
        ...meter,
      }),
      201,
    );
    control = made.device_id;
    t0 = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
  });
  afterAll(async () => {
    await t?.close();
    await db?.remove();
  });

  it('a new serial, the register from zero in a new epoch, the balance carried; name, udfs and space kept', async () => {
    await advance(62 * 60); // between two samples: the old register's final reading keeps the 2 minutes
    const before = await sim();
    expect(before).toMatchObject({ register_epoch: 0, register_kwh: 1.033 });
    const r = ok(await replace({ serial: 'SN-NEW-1' }));
    expect(r).toEqual({
      device_id: a.deviceId,
      old_serial: before.serial,
      new_serial: 'SN-NEW-1',
      register_epoch: 1,
      balance: before.balance,
      refund: null,
    });
    expect(await sim()).toMatchObject({ serial: 'SN-NEW-1', register_epoch: 1, register_kwh: 0 });
    const d = data(await v2()<Device>('GET', `/devices/${a.deviceId}/`));
    expect(d).toMatchObject({ name: 'Kitchen', udf1: 'flat-12', is_online: true, balance: before.balance });
    expect(d.space.id).toBe(a.spaceId);
    expect(events.filter((e) => e.type === 'meter.replaced').map((e) => e.data)).toEqual([
      { old_serial: before.serial, new_serial: 'SN-NEW-1' },
    ]);
    await ledgerClean();
  });

  it('[MC-7.11] energy and 15-minute history across the swap equal the true consumption', async () => {
    await advance(58 * 60); // 2 h in all
    const h = await sameAsControl();
    const c = await history(control);
    expect(h.at(-1)!.value - h[0]!.value).toBe(c.at(-1)!.value - c[0]!.value);
    expect(t.svc.world.twins.refused.energyBackwards).toBe(0);
    expect(t.svc.world.twins.refused.registerEpoch).toBe(0);
    await ledgerClean();
  });

  it('a restart after the swap keeps continuity', async () => {
    await t.close();
    await start();
    await advance(30 * 60);
    await sameAsControl();
    await ledgerClean();
  });

  it('keep_balance: false refunds the balance through a ledger adjustment; the ledger check agrees', async () => {
    const before = await sim();
    const r = ok(await replace({ keep_balance: false }));
    expect(r.new_serial).toMatch(/^SN-[0-9A-F]{10}$/);
    expect(r).toMatchObject({ register_epoch: 2, balance: 0, refund: { amount: -before.balance } });
    await ledgerClean();
    const was = await energy();
    await advance(15 * 60); // prepaid at no credit: cut off at once, energy goes on from where it was
    expect(await energy()).toBeGreaterThanOrEqual(was!);
    expect(await energy()).toBeLessThan(was! + 0.002);
    expect(data(await v2()<Device>('GET', `/devices/${a.deviceId}/`)).balance).toBeLessThanOrEqual(0);
    await ledgerClean();
  });

  it('refuses the present serial, a bad serial and unknown fields (422), an external device (409), an unknown one (404)', async () => {
    const { serial } = await sim();
    const locs = async (body: unknown) => {
      const res = await replace(body);
      expect(res.status).toBe(422);
      expect(res.body.error?.code).toBe('validation_error');
      return ((res.body.error?.detail ?? []) as { loc: string[] }[]).map((d) => d.loc.join('.'));
    };
    expect(await locs({ serial })).toEqual(['serial']);
    expect(await locs({ serial: '' })).toEqual(['serial']);
    expect(await locs({ serial: 'é' })).toEqual(['serial']);
    expect((await locs({ colour: 'red' })).length).toBe(1);
    const ext = await tenant(t.sim, { external: true });
    const conflict = await t.sim('POST', `/devices/${ext.deviceId}/replace`, {});
    expect([conflict.status, conflict.body.error?.code]).toEqual([409, 'conflict']);
    const missing = await t.sim('POST', '/devices/NOPE-1/replace', {});
    expect([missing.status, missing.body.error?.code]).toEqual([404, 'not_found']);
    expect((await sim()).serial).toBe(serial); // nothing half-applied
  });
});
