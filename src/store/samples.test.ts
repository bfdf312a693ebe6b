import { describe, expect, it } from 'vitest';
import { sample, seedDevice, storeBackends, T0, useStores } from './test-helpers.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);
  const MIN = 60_000;
  const DAY = 1440 * MIN;

  describe('samples', () => {
    it('a (device, ts) delivered twice is stored once, and the first delivery wins', async () => {
      const store = await stores.open();
      const { pk } = await seedDevice(store);
      expect(await store.insertSamples([sample(pk, T0), sample(pk, T0 + MIN)])).toBe(2);
      expect(await store.insertSamples([sample(pk, T0 + MIN, 999), sample(pk, T0 + 2 * MIN)])).toBe(1);
      expect(await store.insertSamples([sample(pk, T0 + 3 * MIN), sample(pk, T0 + 3 * MIN, 999)])).toBe(1);
      expect(await store.insertSamples([sample(pk, T0 + 3 * MIN, 999)])).toBe(0);
      expect(await store.countSamples(pk)).toBe(4);
      // The whole-day range reads the rollups, which must agree with the samples.
      for (const bucket of [15, 1440] as const) {
        expect(await store.history(pk, 'energy', T0 - DAY, T0 + DAY, bucket)).toEqual([
          expect.objectContaining({ ts: T0 + 3 * MIN, value: (T0 + 3 * MIN) / 1000 }),
        ]);
      }
    });

    it('latestSample is the greatest ts, whatever the arrival order', async () => {
      const store = await stores.open();
      const { pk } = await seedDevice(store);
      expect(await store.latestSample(pk)).toBeNull();
      await store.insertSamples([sample(pk, T0 + 2 * MIN)]);
      await store.insertSamples([sample(pk, T0 + MIN)]);
      expect(await store.latestSample(pk)).toEqual(sample(pk, T0 + 2 * MIN));
    });

    it('[HX-5] sampleSpan is the oldest and newest ts, per device, whatever the arrival order', async () => {
      const store = await stores.open();
      const a = await seedDevice(store, { deviceId: 'a' });
      const b = await seedDevice(store, { deviceId: 'b' });
      expect(await store.sampleSpan(a.pk)).toBeNull();
      await store.insertSamples([sample(a.pk, T0 + 5 * DAY), sample(b.pk, T0 - DAY)]);
      await store.insertSamples([sample(a.pk, T0), sample(a.pk, T0 + MIN)]);
      expect(await store.sampleSpan(a.pk)).toEqual({ first: T0, last: T0 + 5 * DAY });
      expect(await store.sampleSpan(b.pk)).toEqual({ first: T0 - DAY, last: T0 - DAY });
    });

    it('counts per device', async () => {
      const store = await stores.open();
      const a = await seedDevice(store, { deviceId: 'a' });
      const b = await seedDevice(store, { deviceId: 'b' });
      await store.insertSamples([sample(a.pk, T0), sample(b.pk, T0), sample(b.pk, T0 + MIN)]);
      expect([await store.countSamples(a.pk), await store.countSamples(b.pk)]).toEqual([1, 2]);
    });

    it('a ts must be integer milliseconds', async () => {
      const store = await stores.open();
      const { pk } = await seedDevice(store);
      await expect(store.insertSamples([sample(pk, T0), sample(pk, T0 + 0.5)])).rejects.toThrow(TypeError);
      expect(await store.countSamples(pk)).toBe(0);
    });

    it('every value comes back exactly as written: float noise, tiny and huge values, nulls', async () => {
      const store = await stores.open();
      const { pk } = await seedDevice(store);
      const row = {
        devicePk: pk,
        ts: T0,
        energy: 0.1 + 0.2,
        active_power: 1e-7,
        voltage: 1e21,
        current: null,
        power_factor: -0.000123,
        apparent_power: 5e-324,
        reactive_power: null,
        balance: -9_007_199_254_740,
      };
      const bare = { ...row, ts: T0 + MIN, current: 1.5, balance: null };
      expect(await store.insertSamples([row, bare])).toBe(2);
      expect(await store.latestSample(pk, T0)).toEqual(row);
      expect(await store.latestSample(pk)).toEqual(bare);
    });

    it('an empty insert writes nothing', async () => {
      const store = await stores.open();
      expect(await store.insertSamples([])).toBe(0);
    });

    it('a batch is one transaction: one bad row and none are stored', async () => {
      const store = await stores.open();
      const { pk } = await seedDevice(store);
      await expect(store.insertSamples([sample(pk, T0), sample(pk + 1, T0)])).rejects.toThrow(/foreign key/i);
      expect(await store.countSamples(pk)).toBe(0);
      expect(await store.history(pk, 'energy', T0 - DAY, T0 + DAY, 1440)).toEqual([]);
    });

    it('samples, their rollups and the rest survive close and reopen', async () => {
      const first = await stores.open();
      const device = await seedDevice(first);
      await first.insertSamples([sample(device.pk, T0), sample(device.pk, T0 + 20 * MIN)]);
      await first.appendLedger({
        devicePk: device.pk,
        kind: 'opening',
        amount: 500,
        transactionId: null,
        createdAt: T0,
      });
      await first.setSetting('k', 'v');
      const history = await first.history(device.pk, 'energy', T0 - DAY, T0 + DAY, 15);
      await first.close();

      const second = await stores.open();
      expect(await second.getDevice(device.deviceId)).toEqual(device);
      expect(await second.countSamples(device.pk)).toBe(2);
      expect(await second.latestSample(device.pk)).toEqual(sample(device.pk, T0 + 20 * MIN));
      expect(await second.history(device.pk, 'energy', T0 - DAY, T0 + DAY, 15)).toEqual(history);
      expect(await second.ledgerSince(device.pk, 0)).toHaveLength(1);
      expect(await second.getSetting('k')).toBe('v');
    });
  });
});
