import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StoreConflictError } from './errors.ts';
import { storeBackends, T0, useStores } from './test-helpers.ts';

describe.each(await storeBackends())('$name', ({ name }) => {
  const stores = useStores(name);
  const newKey = () => randomBytes(32).toString('base64url');

  describe('accounts', () => {
    it('creates and reads an account', async () => {
      const store = await stores.open();
      const account = await store.createAccount('acme', T0);
      expect(account).toEqual({ id: 1, name: 'acme', createdAt: T0 });
      expect(await store.getAccount(account.id)).toEqual(account);
      expect(await store.getAccount(99)).toBeNull();
    });
  });

  describe('API keys', () => {
    it('an unknown key has no account', async () => {
      const store = await stores.open();
      await store.addApiKey((await store.createAccount('acme', T0)).id, newKey(), null, T0);
      expect(await store.accountForApiKey(newKey(), T0)).toBeNull();
    });

    it('a key is valid until its expiry, exclusive', async () => {
      const store = await stores.open();
      const account = await store.createAccount('acme', T0);
      const key = newKey();
      await store.addApiKey(account.id, key, T0 + 1000, T0);
      expect(await store.accountForApiKey(key, T0 + 999)).toEqual(account);
      expect(await store.accountForApiKey(key, T0 + 1000)).toBeNull();
    });

    it('a revoked key stops working, and revoking twice reports false', async () => {
      const store = await stores.open();
      const account = await store.createAccount('acme', T0);
      const [key, other] = [newKey(), newKey()];
      await store.addApiKey(account.id, key, null, T0);
      await store.addApiKey(account.id, other, null, T0);
      expect(await store.revokeApiKey(key, T0 + 1)).toBe(true);
      expect(await store.accountForApiKey(key, T0 + 2)).toBeNull();
      expect(await store.accountForApiKey(other, T0 + 2)).toEqual(account);
      expect(await store.revokeApiKey(key, T0 + 3)).toBe(false);
      expect(await store.revokeApiKey(newKey(), T0 + 3)).toBe(false);
    });

    it('the same key cannot be registered twice', async () => {
      const store = await stores.open();
      const account = await store.createAccount('acme', T0);
      const key = newKey();
      await store.addApiKey(account.id, key, null, T0);
      await expect(store.addApiKey(account.id, key, null, T0)).rejects.toBeInstanceOf(StoreConflictError);
    });

    it('a key needs an existing account', async () => {
      const store = await stores.open();
      await expect(store.addApiKey(42, newKey(), null, T0)).rejects.toThrow(/foreign key/i);
    });
  });
});
