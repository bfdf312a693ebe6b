// [spec-decisions 198] A save of every meter is built a slice at a time, the event loop turning between
// slices, and written in one transaction, the clock last. Real offline virtual meters, a real SQLite
// file and real ledger rows: whatever a meter went through while the save was built, what is on disk
// restores (meter-snapshot.ts `restoreMeter`, as a restart does) to the balance the meter has.

import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../simulator/clock.ts';
import { createMeter } from '../../simulator/meter/index.ts';
import { VirtualMeter } from '../../simulator/virtual-meter.ts';
import { newDevice, T0, useTempStores } from '../store/test-helpers.ts';
import type { DeviceRecord, Store } from '../store/types.ts';
import { CLOCK_ANCHOR_SETTING, type ClockAnchor } from './clock-anchor.ts';
import { MeterLedger } from './meter-ledger.ts';
import { restoreMeter } from './meter-snapshot.ts';
import { SnapshotSaver } from './snapshot-saver.ts';
import type { MeterMeta } from './types.ts';

const N = 200;
const stores = useTempStores();

interface World {
  store: Store;
  clock: VirtualClock;
  saver: SnapshotSaver;
  meters: Map<string, { meter: VirtualMeter; meta: MeterMeta }>;
  devices: Map<string, DeviceRecord>;
}

/** N offline meters drawing power, each with its device row and opening ledger entry. */
async function world(): Promise<World> {
  const store = stores.open();
  const clock = new VirtualClock({ start: T0, speed: 0 });
  const account = await store.createAccount('acme', T0);
  const meters: World['meters'] = new Map();
  const devices: World['devices'] = new Map();
  for (let i = 0; i < N; i++) {
    const deviceId = `SAV-${String(i).padStart(3, '0')}`;
    const device = await store.createDevice(newDevice(account.id, { deviceId, name: deviceId }), T0);
    const balance = 5_000 + i;
    const opening = await store.appendLedger({
      devicePk: device.pk,
      kind: 'opening',
      amount: balance,
      transactionId: null,
      createdAt: T0,
    });
    const meter = new VirtualMeter({
      state: createMeter({ deviceId, balance, load: { kind: 'constant', watts: 400 + i } }, T0),
      now: () => clock.now(),
      mqttUrl: 'mqtt://127.0.0.1:1', // never dialled: the meters stay offline
      password: 'unused',
      online: false,
    });
    meters.set(deviceId, { meter, meta: { secret: 'unused', ledgerSeq: opening.entry.seq, pk: device.pk } });
    devices.set(deviceId, device);
  }
  await clock.advance(3_600_000);
  for (const { meter } of meters.values()) meter.tick();
  const saver = new SnapshotSaver({
    store,
    clock,
    log: () => undefined,
    meters: () => meters.values(),
    meter: (id) => meters.get(id),
    intervalMs: 3_600_000,
    buildSliceMs: 0, // a turn of the loop after every meter: the slicing, at its finest
  });
  return { store, clock, saver, meters, devices };
}

/** A recharge as MeterLedger makes it: ledger first, then the meter and its ledger seq together. */
async function recharge(w: World, deviceId: string, amount: number): Promise<void> {
  const { meter, meta } = w.meters.get(deviceId)!;
  const { entry } = await w.store.appendLedger({
    devicePk: meta.pk,
    kind: 'recharge',
    amount,
    transactionId: `pay-${deviceId}`,
    createdAt: w.clock.now(),
  });
  meter.command(`recharge:pay-${deviceId}`, { op: 'recharge', amount, transactionId: `pay-${deviceId}` });
  meta.ledgerSeq = entry.seq;
}

describe('SnapshotSaver: a save of every meter', () => {
  it('lets the event loop turn while it builds; meters recharged and lived on meanwhile restore to the balances they have', async () => {
    const w = await world();
    const first = 'SAV-000';
    const late = 'SAV-150';
    let turned = false;
    const saved = w.saver.saveAll().then(() => turned);
    // The first turn after the save began: one meter built, the rest not yet.
    const during = new Promise<void>((resolve) =>
      setImmediate(() => {
        turned = true;
        void (async () => {
          await recharge(w, first, 700); // its row was built before the credit: the ledger replays it
          await recharge(w, late, 900); // its row is built after: it holds the credit and its seq
          await w.clock.advance(600_000);
          for (const { meter } of w.meters.values()) meter.tick(); // lived on: rows a few ms old are fine
          resolve();
        })();
      }),
    );
    expect(await saved).toBe(true);
    await during;

    const rows = new Map((await w.store.loadMeterSnapshots()).map((r) => [r.devicePk, r]));
    expect(rows.size).toBe(N);
    let newest = 0;
    for (const [deviceId, { meter, meta }] of w.meters) {
      const row = rows.get(meta.pk)!;
      const restored = await restoreMeter(w.store, w.devices.get(deviceId)!, row);
      // Exactly the meter's balance once the time it lived after the row is taken off: no credit lost
      // or counted twice. (Energy since the row was built is charged again when a restart lives on.)
      const chargedSince = meter.state.charged - restored.state.charged;
      expect(restored.state.balance - chargedSince).toBe(meter.state.balance);
      expect(restored.ledgerSeq).toBe(meta.ledgerSeq);
      newest = Math.max(newest, restored.state.lastTs);
    }
    expect(rows.get(w.meters.get(first)!.meta.pk)!.ledgerSeq).toBeLessThan(
      w.meters.get(first)!.meta.ledgerSeq,
    );
    expect(rows.get(w.meters.get(late)!.meta.pk)!.ledgerSeq).toBe(w.meters.get(late)!.meta.ledgerSeq);
    // The clock went last: never behind a meter saved with it.
    const anchor = JSON.parse((await w.store.getSetting(CLOCK_ANCHOR_SETTING))!) as ClockAnchor;
    expect(anchor.vt).toBeGreaterThanOrEqual(newest);
  });

  it('leaves out a meter taken out or replaced while it builds (the newer save writes the new one)', async () => {
    const w = await world();
    const saved = w.saver.saveAll();
    setImmediate(() => {
      w.meters.delete('SAV-000'); // built already, then taken out (a reload, a reset)
      const swapped = w.meters.get('SAV-001')!;
      w.meters.set('SAV-001', { meter: swapped.meter, meta: { ...swapped.meta } }); // a new meta: swapMeter
    });
    await saved;
    const pks = new Set((await w.store.loadMeterSnapshots()).map((r) => r.devicePk));
    expect(pks.size).toBe(N - 2);
    expect(pks.has(w.devices.get('SAV-000')!.pk)).toBe(false);
    expect(pks.has(w.devices.get('SAV-001')!.pk)).toBe(false);
    expect(pks.has(w.devices.get('SAV-002')!.pk)).toBe(true);
  });

  it('[OWNER-3] abandoned while it builds: writes nothing, not even the clock', async () => {
    const w = await world();
    const saved = w.saver.saveAll();
    setImmediate(() => w.saver.abandon());
    await saved;
    expect(await w.store.loadMeterSnapshots()).toEqual([]);
    expect(await w.store.getSetting(CLOCK_ANCHOR_SETTING)).toBeNull();
  });
});

describe('MeterLedger: a recharge saves the meter it credited', () => {
  it('writes that one meter and the clock, not the fleet; what is on disk restores the credit once', async () => {
    const w = await world();
    await w.saver.saveAll();
    const written: number[][] = [];
    const save = w.store.saveMeterSnapshots.bind(w.store);
    w.store.saveMeterSnapshots = (snapshots) => {
      written.push(snapshots.map((r) => r.devicePk));
      return save(snapshots);
    };
    const ledger = new MeterLedger({
      store: w.store,
      clock: w.clock,
      fleet: { get: (id) => w.meters.get(id)?.meter },
      meta: new Map([...w.meters].map(([id, m]) => [id, m.meta])),
      saveSnapshot: (id) => w.saver.saveSome([id]),
      reportedState: () => null,
      log: () => undefined,
    });
    const id = 'SAV-042';
    const { meter, meta } = w.meters.get(id)!;
    const before = meter.state.balance;
    await w.clock.advance(60_000);
    const anchorBefore = (await w.store.getSetting(CLOCK_ANCHOR_SETTING))!;

    const out = await ledger.recharge(id, 1_500, 'pay-one');
    expect(out.applied).toBe(true);
    expect(written).toEqual([[meta.pk]]); // one row: the fleet's other 199 keep to the periodic save
    // The clock was saved with it (never behind the meter's row).
    expect(await w.store.getSetting(CLOCK_ANCHOR_SETTING)).not.toBe(anchorBefore);
    const row = (await w.store.loadMeterSnapshots()).find((r) => r.devicePk === meta.pk)!;
    expect(row.ledgerSeq).toBe(out.ledgerSeq); // the seq the ledger gave the credit
    const restored = await restoreMeter(w.store, w.devices.get(id)!, row);
    expect(restored.state.balance).toBe(meter.state.balance);
    expect(meter.state.balance).toBeGreaterThan(before); // the credit, less a minute of energy

    // The same transaction again is not applied, and writes nothing.
    expect((await ledger.recharge(id, 1_500, 'pay-one')).applied).toBe(false);
    expect(written).toHaveLength(1);
  });
});
