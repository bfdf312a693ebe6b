import { describe, expect, it } from 'vitest';
import { seedDevice, storeBackends, T0, useStores } from './test-helpers.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);

  describe('meter snapshots', () => {
    it('saves, upserts per device, and loads in device order', async () => {
      const store = await stores.open();
      const a = await seedDevice(store, { deviceId: 'a' });
      const b = await seedDevice(store, { deviceId: 'b' });
      expect(await store.loadMeterSnapshots()).toEqual([]);

      const sa = { devicePk: a.pk, state: '{"v":1}', ledgerSeq: 0, updatedAt: T0 };
      const sb = { devicePk: b.pk, state: '{"v":1}', ledgerSeq: 2, updatedAt: T0 };
      await store.saveMeterSnapshots([sb, sa]);
      expect(await store.loadMeterSnapshots()).toEqual([sa, sb]);

      const sa2 = { ...sa, state: '{"v":2}', ledgerSeq: 3, updatedAt: T0 + 1000 };
      await store.saveMeterSnapshots([sa2]);
      expect(await store.loadMeterSnapshots()).toEqual([sa2, sb]);
    });

    it('a batch of snapshots is all or nothing', async () => {
      const store = await stores.open();
      const a = await seedDevice(store);
      const good = { devicePk: a.pk, state: '{}', ledgerSeq: 0, updatedAt: T0 };
      await expect(store.saveMeterSnapshots([good, { ...good, devicePk: 404 }])).rejects.toThrow(
        /foreign key/i,
      );
      expect(await store.loadMeterSnapshots()).toEqual([]);
    });
  });

  describe('settings', () => {
    it('get, set and overwrite', async () => {
      const store = await stores.open();
      expect(await store.getSetting('clock.offset')).toBeNull();
      await store.setSetting('clock.offset', '0');
      await store.setSetting('clock.offset', '3600000');
      expect(await store.getSetting('clock.offset')).toBe('3600000');
    });
  });
});
