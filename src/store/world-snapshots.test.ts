// World snapshots behind the Store interface (issue 12 §2), on both backends: save, list, restore (every
// world table's rows, ids and ledger seqs exactly), delete, reset, and the portable file both ways.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/service.ts';
import { SnapshotFileError, StoreConflictError } from './errors.ts';
import { sample, seedDevice, storeBackends, T0, useStores } from './test-helpers.ts';
import type { Store } from './types.ts';

const META = { createdAt: T0, clock: T0 + 5000, speed: 1 };
const KEEP = ['events.seq'];

async function world(store: Store) {
  const device = await seedDevice(store, { deviceId: 'MTR-A' });
  await store.addApiKey(device.accountId, 'msk_a', null, T0);
  await store.insertSamples([sample(device.pk, T0), sample(device.pk, T0 + 60_000)]);
  await store.appendLedger({
    devicePk: device.pk,
    kind: 'opening',
    amount: 500,
    transactionId: null,
    createdAt: T0,
  });
  await store.saveMeterSnapshots([{ devicePk: device.pk, state: '{"v":1}', ledgerSeq: 1, updatedAt: T0 }]);
  await store.setSetting('clock.offset', '42');
  await store.setSetting('events.seq', '100');
  return device;
}

/** Everything the world tables say, read through the Store interface. */
async function look(store: Store, deviceId = 'MTR-A') {
  const device = await store.getDevice(deviceId);
  return {
    device,
    key: (await store.accountForApiKey('msk_a', T0))?.id ?? null,
    samples: device ? await store.countSamples(device.pk) : null,
    history: device ? await store.history(device.pk, 'energy', T0, T0 + 3_600_000, 15) : null,
    ledger: device ? await store.ledgerSince(device.pk, 0) : null,
    snapshots: await store.loadMeterSnapshots(),
    offset: await store.getSetting('clock.offset'),
  };
}

describe.each(await storeBackends())('world snapshots on $name', ({ name }) => {
  const stores = useStores(name);

  it('a restore puts every world table back as saved; ids and ledger seqs go on from there; kept settings stay', async () => {
    const store = await stores.open();
    const device = await world(store);
    const before = await look(store);
    const saved = await store.saveWorldSnapshot('base', META);
    expect(saved).toMatchObject({ name: 'base', devices: 1, readings: 2, clock: META.clock, speed: 1 });
    expect(saved.bytes).toBeGreaterThan(0);

    // Changes after the snapshot: a recharge, a sample, a new account and device, a setting.
    await store.appendLedger({
      devicePk: device.pk,
      kind: 'recharge',
      amount: 100,
      transactionId: 't1',
      createdAt: T0,
    });
    await store.insertSamples([sample(device.pk, T0 + 120_000)]);
    await seedDevice(store, { deviceId: 'MTR-B' });
    await store.setSetting('clock.offset', '99');
    await store.setSetting('events.seq', '200');
    expect(await look(store)).not.toEqual(before);

    expect(await store.restoreWorldSnapshot('base', KEEP)).toMatchObject({ name: 'base' });
    expect(await look(store)).toEqual(before);
    expect(await store.getDevice('MTR-B')).toBeNull();
    expect(await store.getSetting('events.seq')).toBe('200');
    // The same ids and seqs as the first time round: the same requests give the same answers.
    const b = await seedDevice(store, { deviceId: 'MTR-B' });
    expect(b.pk).toBe(device.pk + 1);
    const r = await store.appendLedger({
      devicePk: device.pk,
      kind: 'recharge',
      amount: 100,
      transactionId: 't1',
      createdAt: T0,
    });
    expect(r.entry.seq).toBe(2);
    expect(await store.deleteWorldSnapshot('base')).toBe(true);
  });

  it('names: a taken one is a conflict; an unknown one restores nothing and deletes nothing; the list says what is kept', async () => {
    const store = await stores.open();
    await world(store);
    await store.saveWorldSnapshot('one', META);
    await expect(store.saveWorldSnapshot('one', META)).rejects.toBeInstanceOf(StoreConflictError);
    await store.saveWorldSnapshot('two', { ...META, createdAt: T0 + 1 });
    expect((await store.listWorldSnapshots()).map((s) => s.name)).toEqual(['one', 'two']);
    expect(await store.restoreWorldSnapshot('nope', KEEP)).toBeNull();
    expect(await store.deleteWorldSnapshot('nope')).toBe(false);
    expect(await store.getDevice('MTR-A')).not.toBeNull();
    await store.deleteWorldSnapshot('one');
    await store.deleteWorldSnapshot('two');
    expect(await store.listWorldSnapshots()).toEqual([]);
  });

  it('reset empties every world table; the ledger is append-only again after', async () => {
    const store = await stores.open();
    await world(store);
    await store.resetWorld(['clock.offset']);
    expect(await look(store)).toMatchObject({ device: null, key: null, snapshots: [], offset: '42' });
    expect(await store.getSetting('events.seq')).toBeNull();
    const d = await seedDevice(store, { deviceId: 'MTR-C' });
    await store.appendLedger({
      devicePk: d.pk,
      kind: 'opening',
      amount: 1,
      transactionId: null,
      createdAt: T0,
    });
    await expect(stores.sql('DELETE FROM ledger')).rejects.toThrow(/append-only/);
  });

  it('the portable file: exported, imported into a fresh store of either kind, restored the same; a stranger file is refused', async () => {
    const { dir, remove } = tempDir();
    try {
      const store = await stores.open();
      await world(store);
      const before = await look(store);
      await store.saveWorldSnapshot('base', META);
      const file = join(dir, 'base.sqlite');
      expect(await store.exportWorldSnapshot('base', file)).toBe(true);
      expect(await store.exportWorldSnapshot('nope', join(dir, 'x'))).toBe(false);
      await store.deleteWorldSnapshot('base');

      const other = await stores.open('other.db');
      const got = await other.importWorldSnapshot('moved', file);
      expect(got).toMatchObject({ name: 'moved', devices: 1, readings: 2, clock: META.clock });
      await expect(other.importWorldSnapshot('moved', file)).rejects.toBeInstanceOf(StoreConflictError);
      await other.restoreWorldSnapshot('moved', KEEP);
      expect(await look(other)).toEqual(before);
      await other.deleteWorldSnapshot('moved');

      writeFileSync(join(dir, 'junk'), 'not a database at all, just some bytes');
      await expect(other.importWorldSnapshot('junk', join(dir, 'junk'))).rejects.toBeInstanceOf(
        SnapshotFileError,
      );
      await expect(other.importWorldSnapshot('junk', join(dir, 'absent'))).rejects.toBeInstanceOf(
        SnapshotFileError,
      );
    } finally {
      remove();
    }
  });

  it("deleteDeviceReadings removes one device's samples, rollups and reports, nothing else", async () => {
    const store = await stores.open();
    const a = await world(store);
    const b = await store.createDevice(
      { ...(await store.getDevice('MTR-A'))!, deviceId: 'MTR-B', mqttSecretHash: 'h' },
      T0,
    );
    await store.insertSamples([sample(b.pk, T0)]);
    await store.saveDeviceReports([{ devicePk: a.pk, info: '{}', state: '{}', updatedAt: T0 }]);
    await store.deleteDeviceReadings(a.pk);
    expect(await store.countSamples(a.pk)).toBe(0);
    expect(await store.history(a.pk, 'energy', T0, T0 + 86_400_000, 1440)).toEqual([]);
    expect(await store.loadDeviceReports()).toEqual([]);
    expect(await store.countSamples(b.pk)).toBe(1);
    expect(await store.ledgerSince(a.pk, 0)).toHaveLength(1);
  });
});
