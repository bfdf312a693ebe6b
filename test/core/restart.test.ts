// `meterstack serve` as a real process on one database (a SQLite file, or a PostgreSQL schema: issue 11
// §3): killed with SIGKILL, or stopped with SIGTERM or SIGINT, and started again. Nothing acknowledged may be lost: accounts, API keys, spaces, devices,
// balances, and every reading stored by the time a clock advance returned. The clock never goes back.

import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { type DbBackend, dbBackends, freshDb, queryDb } from '../helpers/db.ts';
import { useServeOnDb } from '../helpers/serve-on-db.ts';
import { ok, type Sim } from '../helpers/service.ts';

const TOKEN = 'restart-admin-token';
const PERIOD_MS = 60_000;

interface MeterView {
  balance: number;
  balance_exact: { units: string };
  energy_kwh: number;
  meter_time: string;
  relay_state: boolean;
}

const { serve, stop, cleanups } = useServeOnDb(TOKEN);

const clockMs = async (sim: Sim) => ok(await sim<{ now_ms: number }>('GET', '/clock')).now_ms;
const meter = async (sim: Sim, id: string) => ok(await sim<MeterView>('GET', `/devices/${id}`));

/** An account with two keys, a space, two meters, a recharge and an hour of readings. */
async function seed(sim: Sim) {
  const account = ok(
    await sim<{ account_id: number; api_key: string }>('POST', '/accounts', { name: 'acme' }),
  );
  const key2 = ok(await sim<{ api_key: string }>('POST', `/accounts/${account.account_id}/keys`, {})).api_key;
  const space = ok(
    await sim<{ space_id: number }>('POST', '/spaces', {
      account_id: account.account_id,
      name: 'Block A',
      udf1: 'kept',
    }),
  );
  // `idle` draws nothing, so its balance is exact across restarts whatever the wall clock does.
  ok(
    await sim('POST', '/devices', {
      account_id: account.account_id,
      space_id: space.space_id,
      device_id: 'IDLE-1',
      balance: 1000,
      load_watts: 0,
    }),
    201,
  );
  ok(
    await sim('POST', '/devices', {
      account_id: account.account_id,
      device_id: 'BUSY-1',
      model: 'full',
      balance: 100_000,
      load_watts: 2000,
    }),
    201,
  );
  expect(
    ok(await sim('POST', '/devices/IDLE-1/recharge', { amount: 500, transaction_id: 'pay-restart-1' })),
  ).toEqual({ balance: 1500, applied: true });
  // Let the snapshot that the recharge scheduled be written first, so that what is durable after the
  // advance is what the advance itself made durable.
  await new Promise((r) => setTimeout(r, 100));
  const advanced = ok(await sim<{ to: string }>('POST', '/clock/advance', { seconds: 3600 }));
  return { account, key2, space, advancedTo: Date.parse(advanced.to) };
}

/** Sample timestamps of a device, ascending, read from the store after the service stopped. */
async function sampleTimes(db: string, deviceId: string): Promise<number[]> {
  const rows = await queryDb<{ ts: number }>(
    db,
    'SELECT s.ts FROM samples s JOIN devices d ON d.pk = s.device_pk WHERE d.device_id = ? ORDER BY s.ts',
    [deviceId],
  );
  return rows.map((r) => r.ts);
}

/** A fresh database of `backend`, removed after the test. */
async function newDb(backend: DbBackend): Promise<string> {
  const { db, remove } = await freshDb(backend);
  cleanups.push(remove);
  return db;
}

async function createdAtOf(db: string, deviceId: string): Promise<number> {
  const store = await openStore(db);
  try {
    return (await store.getDevice(deviceId))!.createdAt;
  } finally {
    await store.close();
  }
}

/** Every period boundary from the device's first sample to `until` is stored: no reading lost, no gap. */
/** The periodic series has no gap; the samples of each (re)connection [MC-6.7] lie between its periods. */
async function expectNoGap(db: string, deviceId: string, until: number) {
  const times = (await sampleTimes(db, deviceId)).filter((ts) => ts % PERIOD_MS === 0);
  const first = (Math.floor((await createdAtOf(db, deviceId)) / PERIOD_MS) + 1) * PERIOD_MS;
  expect(times[0]).toBe(first);
  const gaps = times.slice(1).filter((ts, i) => ts - times[i]! !== PERIOD_MS);
  expect(gaps).toEqual([]);
  expect(times.at(-1)).toBeGreaterThanOrEqual(Math.floor(until / PERIOD_MS) * PERIOD_MS);
}

async function expectRecordsKept(db: string, seeded: Awaited<ReturnType<typeof seed>>) {
  const store = await openStore(db);
  try {
    const now = Date.now() + 10 * 365 * 86_400_000;
    expect(await store.getAccount(seeded.account.account_id)).toMatchObject({ name: 'acme' });
    expect((await store.accountForApiKey(seeded.account.api_key, now))?.id).toBe(seeded.account.account_id);
    expect((await store.accountForApiKey(seeded.key2, now))?.id).toBe(seeded.account.account_id);
    expect(await store.getSpace(seeded.space.space_id)).toMatchObject({ name: 'Block A', udf1: 'kept' });
    expect(await store.getDevice('IDLE-1')).toMatchObject({
      spaceId: seeded.space.space_id,
      kind: 'virtual',
    });
    expect(await store.getDevice('BUSY-1')).toMatchObject({ spaceId: null, model: 'full' });
    const idle = (await store.getDevice('IDLE-1'))!;
    const ledger = await store.ledgerSince(idle.pk, 0);
    expect(ledger.map((e) => [e.kind, e.amount, e.transactionId])).toEqual([
      ['opening', 1000, null],
      ['recharge', 500, 'pay-restart-1'],
    ]);
  } finally {
    await store.close();
  }
}

describe.each(await dbBackends())('on $name', ({ name: backend }) => {
  describe('serve killed with SIGKILL and started again on the same database', () => {
    it('loses no account, key, space, device, balance or acknowledged reading, and its clock does not go back', async () => {
      const db = await newDb(backend);

      const first = await serve(db);
      const seeded = await seed(first.sim);
      // Killed the moment the advance returned: what it acknowledged must already be on disk.
      expect(await stop(first.p, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

      const second = await serve(db);
      expect(await clockMs(second.sim)).toBeGreaterThanOrEqual(seeded.advancedTo);
      const idle = await meter(second.sim, 'IDLE-1');
      expect(idle.balance_exact.units).toBe((1500n * 3_600_000_000_000n).toString());
      // BUSY-1 draws 2 kW at 800 paise/kWh from its creation on; it lived at least until the advance ended.
      const createdAt = await createdAtOf(db, 'BUSY-1');
      const busy = await meter(second.sim, 'BUSY-1');
      expect(Date.parse(busy.meter_time)).toBeGreaterThanOrEqual(seeded.advancedTo);
      expect(busy.energy_kwh).toBeGreaterThanOrEqual(
        (2 * (seeded.advancedTo - createdAt)) / 3_600_000 - 1e-9,
      );

      // The replayed recharge credits nothing [MC-8.8].
      expect(
        ok(
          await second.sim('POST', '/devices/IDLE-1/recharge', {
            amount: 500,
            transaction_id: 'pay-restart-1',
          }),
        ),
      ).toEqual({ balance: 1500, applied: false });
      expect((await meter(second.sim, 'IDLE-1')).balance_exact.units).toBe(idle.balance_exact.units);

      expect((await stop(second.p, 'SIGTERM')).code).toBe(0);
      await expectRecordsKept(db, seeded);
      await expectNoGap(db, 'IDLE-1', seeded.advancedTo);
      await expectNoGap(db, 'BUSY-1', seeded.advancedTo);
    });
  });

  describe('a recharge acknowledged, then SIGKILL', () => {
    // The admin MQTT login may no longer publish commands [MC-2.6]; the meter's own persist-before-reply
    // over MQTT [MC-8.5] is checked in-process in test/core/commands.test.ts with the service's login.
    it('a recharge /sim/v1 acknowledged is on disk: the credit survives a kill -9 right after the answer', async () => {
      const db = await newDb(backend);
      const first = await serve(db);
      const account = ok(await first.sim<{ account_id: number }>('POST', '/accounts', { name: 'acme' }));
      ok(
        await first.sim('POST', '/devices', {
          account_id: account.account_id,
          device_id: 'CARD-1',
          balance: 100,
          load_watts: 0,
        }),
        201,
      );
      const answer = ok(
        await first.sim('POST', '/devices/CARD-1/recharge', { amount: 250, transaction_id: 'card-1' }),
      );
      expect(answer).toEqual({ balance: 350, applied: true });
      // Killed the moment the service said yes: nothing may have been left to a later save.
      expect(await stop(first.p, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
      const second = await serve(db);
      expect((await meter(second.sim, 'CARD-1')).balance_exact.units).toBe(
        (350n * 3_600_000_000_000n).toString(),
      );
    });
  });

  describe.each(['SIGTERM', 'SIGINT'] as const)('serve stopped with %s', (signal) => {
    it('flushes every reading, exits 0 and starts again with the same state', async () => {
      const db = await newDb(backend);

      const first = await serve(db);
      const seeded = await seed(first.sim);
      const clockBefore = await clockMs(first.sim);
      const exit = await stop(first.p, signal);
      expect(exit).toEqual({ code: 0, signal: null });
      expect(first.p.stdout).toContain(`${signal}: shutting down, flushing readings`);
      expect(first.p.stdout).toContain('stopped cleanly');
      await expectRecordsKept(db, seeded);
      const stored = await sampleTimes(db, 'BUSY-1');
      await expectNoGap(db, 'BUSY-1', seeded.advancedTo);

      // What the meter was when it stopped is what it is again: the snapshot carries its registers.
      const store = await openStore(db);
      const lastSample = await store.latestSample((await store.getDevice('BUSY-1'))!.pk);
      await store.close();

      const second = await serve(db);
      expect(await clockMs(second.sim)).toBeGreaterThanOrEqual(clockBefore);
      const idle = await meter(second.sim, 'IDLE-1');
      expect(idle.balance).toBe(1500);
      const busy = await meter(second.sim, 'BUSY-1');
      expect(busy.energy_kwh).toBeGreaterThanOrEqual(lastSample!.energy!);
      expect(busy.balance).toBeLessThanOrEqual(lastSample!.balance!);
      expect((await stop(second.p, signal)).code).toBe(0);
      expect((await sampleTimes(db, 'BUSY-1')).slice(0, stored.length)).toEqual(stored);
      await expectNoGap(db, 'BUSY-1', seeded.advancedTo);
    });
  });
});
