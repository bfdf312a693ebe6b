// Two processes on one SQLite file (issue 11 §4), here two connections: what one commits, the other's
// caches do not hide (other-writers.ts).

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { T0, useTempStores } from '../test-helpers.ts';
import { MAX_STALE_MS } from './other-writers.ts';

const stores = useTempStores();
/** Past the bound within which another connection's commit may go unseen. */
const stale = () => new Promise((r) => setTimeout(r, MAX_STALE_MS + 10));
const UDFS = { udf1: null, udf2: null, udf3: null, udf4: null, udf5: null };

describe('caches beside another writer of the same file', () => {
  it('a key revoked through the other connection is refused at the next lookup', async () => {
    const [a, b] = [stores.open('shared.db'), stores.open('shared.db')];
    const account = await a.createAccount('acme', T0);
    const key = randomBytes(32).toString('base64url');
    await a.addApiKey(account.id, key, null, T0);
    expect(await a.accountForApiKey(key, T0)).toEqual(account); // now in a's cache
    expect(await b.revokeApiKey(key, T0)).toBe(true);
    await stale();
    expect(await a.accountForApiKey(key, T0)).toBeNull();
  });

  it("a device added or renamed by the other connection shows in this one's space list and lookups", async () => {
    const [a, b] = [stores.open('shared.db'), stores.open('shared.db')];
    const account = await a.createAccount('acme', T0);
    const space = await a.createSpace({ accountId: account.id, name: 'S', description: '', ...UDFS });
    const device = (id: string) => ({
      deviceId: id,
      accountId: account.id,
      spaceId: space.id,
      name: id,
      description: '',
      model: 'basic' as const,
      kind: 'virtual' as const,
      mqttSecretHash: 'x',
      ...UDFS,
    });
    await a.createDevice(device('M1'), T0);
    expect((await a.listDevices({ spaceId: space.id })).map((d) => d.deviceId)).toEqual(['M1']);
    expect((await a.getDevice('M1'))?.name).toBe('M1');
    await b.createDevice(device('M2'), T0);
    await b.updateDevice('M1', { name: 'renamed' });
    await stale();
    expect((await a.listDevices({ spaceId: space.id })).map((d) => d.deviceId)).toEqual(['M1', 'M2']);
    expect((await a.getDevice('M1'))?.name).toBe('renamed');
    await b.updateSpace(space.id, { name: 'S2' });
    await stale();
    expect((await a.getSpace(space.id))?.name).toBe('S2');
  });
});
