import { describe, expect, it } from 'vitest';
import { seedDevice, storeBackends, T0, useStores } from './test-helpers.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);

  describe('[MC-5.4] device reports', () => {
    it('saves, upserts per device, loads in device order, and survives reopening the file', async () => {
      const store = await stores.open();
      const a = await seedDevice(store, { deviceId: 'a' });
      const b = await seedDevice(store, { deviceId: 'b' });
      expect(await store.loadDeviceReports()).toEqual([]);

      const ra = { devicePk: a.pk, info: '{"v":1}', state: null, updatedAt: T0 };
      const rb = { devicePk: b.pk, info: null, state: '{"v":1,"mode":"prepaid"}', updatedAt: T0 };
      await store.saveDeviceReports([rb, ra]);
      const ra2 = { ...ra, state: '{"v":1,"mode":"postpaid"}', updatedAt: T0 + 1 };
      await store.saveDeviceReports([ra2]);
      expect(await store.loadDeviceReports()).toEqual([ra2, rb]);
      await store.close();
      expect(await (await stores.open()).loadDeviceReports()).toEqual([ra2, rb]);
    });
  });
});
