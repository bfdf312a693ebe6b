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

    // The v2 API's sync path (issue 19 step 7): what the store knows at once agrees with
    // accountForApiKey; undefined only where the answer needs I/O (PostgreSQL before a key is cached).
    it('accountForApiKeyNow answers as accountForApiKey, or undefined', async () => {
      const store = await stores.open();
      const account = await store.createAccount('acme', T0);
      const key = newKey();
      const wall = 1_800_000_000_000;
      await store.addApiKey(account.id, key, T0 + 1000, T0);
      // SQLite answers at once; PostgreSQL only for a key its cache holds.
      const atOnce = (answer: unknown) => (name === 'sqlite' ? answer : undefined);
      expect(store.accountForApiKeyNow(key, T0, wall)).toEqual(atOnce(account));
      expect(store.accountForApiKeyNow(newKey(), T0, wall)).toEqual(atOnce(null));
      expect(await store.accountForApiKey(key, T0, wall)).toEqual(account);
      // Cached now on both: valid before its expiry, refused from it on.
      expect(store.accountForApiKeyNow(key, T0 + 999, wall)).toEqual(account);
      expect(store.accountForApiKeyNow(key, T0 + 1000, wall)).toBeNull();
      await store.revokeApiKey(key, T0);
      expect(store.accountForApiKeyNow(key, T0, wall)).toEqual(atOnce(null));
    });

    // [CON-4] A console key expires on the wall clock; the virtual clock (however far it jumps) does
    // not end it, and the wall clock ends it even when cached as valid (no query on a cache hit).
    it('a key with a wall-clock expiry is valid until it, whatever the virtual clock says [CON-4]', async () => {
      const store = await stores.open();
      const account = await store.createAccount('acme', T0);
      const key = newKey();
      const wall = 1_800_000_000_000;
      await store.addApiKey(account.id, key, { expiresAt: null, wallExpiresAt: wall + 3_600_000 }, T0);
      expect(await store.accountForApiKey(key, T0, wall)).toEqual(account);
      // A virtual year later, the same wall instant: still valid.
      expect(await store.accountForApiKey(key, T0 + 365 * 86_400_000, wall + 1)).toEqual(account);
      expect(await store.accountForApiKey(key, T0, wall + 3_599_999)).toEqual(account);
      expect(await store.accountForApiKey(key, T0, wall + 3_600_000)).toBeNull();
      // A virtual clock set back does not revive it either.
      expect(await store.accountForApiKey(key, T0 - 86_400_000, wall + 3_600_001)).toBeNull();
    });

    it('a wall-clock-expired key is refused on first sight too (not only from the cache) [CON-4]', async () => {
      const store = await stores.open();
      const account = await store.createAccount('acme', T0);
      const key = newKey();
      const wall = 1_800_000_000_000;
      await store.addApiKey(account.id, key, { expiresAt: null, wallExpiresAt: wall }, T0);
      expect(await store.accountForApiKey(key, T0, wall)).toBeNull();
      expect(await store.accountForApiKey(key, T0, wall - 1)).toEqual(account);
    });

    it('both expiries apply: the virtual one still ends a key that has wall time left', async () => {
      const store = await stores.open();
      const account = await store.createAccount('acme', T0);
      const key = newKey();
      const wall = 1_800_000_000_000;
      await store.addApiKey(account.id, key, { expiresAt: T0 + 1000, wallExpiresAt: wall + 1000 }, T0);
      expect(await store.accountForApiKey(key, T0 + 999, wall)).toEqual(account);
      expect(await store.accountForApiKey(key, T0 + 1000, wall)).toBeNull();
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
