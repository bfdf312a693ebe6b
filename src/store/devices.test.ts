import { describe, expect, it } from 'vitest';
import { StoreConflictError } from './errors.ts';
import { newDevice, storeBackends, T0, useStores } from './test-helpers.ts';
import type { Space } from './types.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);

  const noUdfs = { udf1: null, udf2: null, udf3: null, udf4: null, udf5: null };

  describe('spaces', () => {
    it('create, get, list by account', async () => {
      const store = await stores.open();
      const acme = await store.createAccount('acme', T0);
      const other = await store.createAccount('other', T0);
      const a = await store.createSpace({
        accountId: acme.id,
        name: 'Block A',
        description: 'east',
        ...noUdfs,
        udf2: 'x',
      });
      const b = await store.createSpace({ accountId: acme.id, name: 'Block B', description: '', ...noUdfs });
      await store.createSpace({ accountId: other.id, name: 'Elsewhere', description: '', ...noUdfs });

      expect(a).toEqual<Space>({
        id: 1,
        accountId: acme.id,
        name: 'Block A',
        description: 'east',
        ...noUdfs,
        udf2: 'x',
      });
      expect(await store.getSpace(a.id)).toEqual(a);
      expect(await store.getSpace(99)).toBeNull();
      expect(await store.listSpaces(acme.id)).toEqual([a, b]);
      expect(await store.listSpaces(12345)).toEqual([]);
    });

    it('the at-once readers answer as getDevice, getSpace and listDevices do, also after a change', async () => {
      const store = await stores.open();
      const acme = await store.createAccount('acme', T0);
      const s = await store.createSpace({ accountId: acme.id, name: 'A', description: '', ...noUdfs });
      await store.createDevice(newDevice(acme.id, { deviceId: 'd1', spaceId: s.id }), T0);
      const same = async () => {
        expect(await store.getDeviceNow('d1')).toEqual(await store.getDevice('d1'));
        expect(await store.getDeviceNow('nope')).toBeNull();
        expect(await store.getSpaceNow(s.id)).toEqual(await store.getSpace(s.id));
        expect(await store.getSpaceNow(99)).toBeNull();
        expect(await store.listDevicesNow({ spaceId: s.id })).toEqual(
          await store.listDevices({ spaceId: s.id }),
        );
      };
      await same();
      // SQLite answers at once (no promise); a read-through cache must not keep the old record.
      if (name === 'sqlite') expect(store.getDeviceNow('d1')).not.toBeInstanceOf(Promise);
      await store.updateDevice('d1', { name: 'renamed' });
      await store.updateSpace(s.id, { name: 'A2' });
      expect(((await store.getDeviceNow('d1')) as { name: string }).name).toBe('renamed');
      expect(((await store.getSpaceNow(s.id)) as Space).name).toBe('A2');
      await same();
    });

    it('update changes only the fields given; udf1 can be cleared with null', async () => {
      const store = await stores.open();
      const acme = await store.createAccount('acme', T0);
      const s = await store.createSpace({
        accountId: acme.id,
        name: 'A',
        description: 'd',
        ...noUdfs,
        udf1: 'u',
      });
      expect(await store.updateSpace(s.id, { name: 'A2' })).toEqual({ ...s, name: 'A2' });
      expect(await store.updateSpace(s.id, { description: 'd2', udf1: null })).toEqual({
        ...s,
        name: 'A2',
        description: 'd2',
        udf1: null,
      });
      expect(await store.updateSpace(s.id, {})).toEqual(await store.getSpace(s.id));
      expect(await store.updateSpace(99, { name: 'x' })).toBeNull();
    });
  });

  describe('devices', () => {
    it('create fills the defaults; get by device_id and by pk', async () => {
      const store = await stores.open();
      const acme = await store.createAccount('acme', T0);
      const device = await store.createDevice(newDevice(acme.id, { model: 'full', udf3: 'asset-7' }), T0 + 5);
      expect(device).toEqual({
        pk: 1,
        deviceId: 'MTR-0001',
        accountId: acme.id,
        spaceId: null,
        name: 'Meter 1',
        description: '',
        model: 'full',
        kind: 'virtual',
        publicAccess: false,
        publicHash: null,
        isShared: false,
        createdAt: T0 + 5,
        ...noUdfs,
        udf3: 'asset-7',
      });
      expect(await store.getDevice('MTR-0001')).toEqual(device);
      expect(await store.getDeviceByPk(device.pk)).toEqual(device);
      expect(await store.getDevice('nope')).toBeNull();
      expect(await store.getDeviceByPk(99)).toBeNull();
      expect(await store.mqttSecretHash('MTR-0001')).toBe('secret-hash');
      expect(await store.mqttSecretHash('nope')).toBeNull();
    });

    it('list filters by account, by space, by both, or not at all', async () => {
      const store = await stores.open();
      const acme = await store.createAccount('acme', T0);
      const other = await store.createAccount('other', T0);
      const space = await store.createSpace({ accountId: acme.id, name: 'A', description: '', ...noUdfs });
      const d1 = await store.createDevice(newDevice(acme.id, { deviceId: 'd1', spaceId: space.id }), T0);
      const d2 = await store.createDevice(newDevice(acme.id, { deviceId: 'd2' }), T0);
      const d3 = await store.createDevice(newDevice(other.id, { deviceId: 'd3', kind: 'external' }), T0);

      expect(await store.listDevices()).toEqual([d1, d2, d3]);
      expect(await store.listDevices({ accountId: acme.id })).toEqual([d1, d2]);
      expect(await store.listDevices({ spaceId: space.id })).toEqual([d1]);
      expect(await store.listDevices({ accountId: other.id, spaceId: space.id })).toEqual([]);
    });

    it('update changes name, description and udf1 only as given', async () => {
      const store = await stores.open();
      const acme = await store.createAccount('acme', T0);
      const d = await store.createDevice(newDevice(acme.id, { udf1: 'old' }), T0);
      expect(await store.updateDevice(d.deviceId, { name: 'Kitchen' })).toEqual({ ...d, name: 'Kitchen' });
      expect(await store.updateDevice(d.deviceId, { udf1: null, description: 'by the door' })).toEqual({
        ...d,
        name: 'Kitchen',
        description: 'by the door',
        udf1: null,
      });
      expect(await store.updateDevice('nope', { name: 'x' })).toBeNull();
    });

    it('a device_id is unique', async () => {
      const store = await stores.open();
      const acme = await store.createAccount('acme', T0);
      await store.createDevice(newDevice(acme.id), T0);
      const err = await store.createDevice(newDevice(acme.id), T0).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreConflictError);
      expect(err).toMatchObject({ field: 'device_id' });
    });

    it("a device cannot be put in another account's space", async () => {
      const store = await stores.open();
      const acme = await store.createAccount('acme', T0);
      const other = await store.createAccount('other', T0);
      const theirs = await store.createSpace({ accountId: other.id, name: 'B', description: '', ...noUdfs });
      await expect(store.createDevice(newDevice(acme.id, { spaceId: theirs.id }), T0)).rejects.toThrow(
        /foreign key/i,
      );
    });
  });

  it('[SNAP-8] setMqttSecretHashes changes only the hashes that differ, in one call, and names those devices', async () => {
    const store = await stores.open();
    const acme = await store.createAccount('acme', T0);
    for (const id of ['M1', 'M2', 'M3'])
      await store.createDevice(newDevice(acme.id, { deviceId: id, mqttSecretHash: `old-${id}` }), T0);
    const changed = await store.setMqttSecretHashes([
      { deviceId: 'M1', hash: 'new-M1' },
      { deviceId: 'M2', hash: 'old-M2' },
      { deviceId: 'NOPE', hash: 'x' },
    ]);
    expect(changed).toEqual(['M1']);
    expect(await store.mqttSecretHash('M1')).toBe('new-M1');
    expect(await store.mqttSecretHash('M2')).toBe('old-M2');
    expect(await store.mqttSecretHash('M3')).toBe('old-M3');
    expect(await store.setMqttSecretHashes([])).toEqual([]);
  });
});
