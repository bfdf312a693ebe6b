import { describe, expect, it } from 'vitest';
import { seedDevice, storeBackends, T0, useStores } from './test-helpers.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);

  describe('[MC-7.9] [MC-7.10] register continuity', () => {
    it('saves, upserts per device (the last row of a device wins), loads in device order, survives reopening', async () => {
      const store = await stores.open();
      const a = await seedDevice(store, { deviceId: 'a' });
      const b = await seedDevice(store, { deviceId: 'b' });
      expect(await store.loadRegisterContinuity()).toEqual([]);

      const ra = { devicePk: a.pk, epoch: 1, offsetKwh: 1234.567, updatedAt: T0 };
      const rb = { devicePk: b.pk, epoch: 0, offsetKwh: 99_999.999, updatedAt: T0 };
      await store.saveRegisterContinuity([rb, ra]);
      const ra2 = { ...ra, epoch: 2, offsetKwh: 1240.001, updatedAt: T0 + 1 };
      const ra3 = { ...ra2, epoch: 3, offsetKwh: 1250.5, updatedAt: T0 + 2 };
      await store.saveRegisterContinuity([ra2, ra3]);
      expect(await store.loadRegisterContinuity()).toEqual([ra3, rb]);
      await store.close();
      expect(await (await stores.open()).loadRegisterContinuity()).toEqual([ra3, rb]);
    });
  });
});
