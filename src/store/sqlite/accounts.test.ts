// SQLite-only: what reaches the database files. The behaviour is in ../accounts.test.ts (both backends).

import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../rows.ts';
import { T0, useTempStores } from '../test-helpers.ts';

const stores = useTempStores();
const newKey = () => randomBytes(32).toString('base64url');

describe('API keys (SQLite files)', () => {
  it('stores only the sha256 of a key: the key itself appears nowhere in the database files', async () => {
    const store = stores.open();
    const account = await store.createAccount('acme', T0);
    const key = newKey();
    await store.addApiKey(account.id, key, null, T0);
    expect(await store.accountForApiKey(key, T0)).toEqual(account);
    await store.close();

    const bytes = Buffer.concat(readdirSync(stores.dir()).map((f) => readFileSync(join(stores.dir(), f))));
    expect(bytes.includes(key)).toBe(false);
    expect(bytes.includes(hashApiKey(key))).toBe(true); // we did read the right bytes
  });
});
