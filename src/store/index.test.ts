import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore } from './index.ts';
import { T0, useTempStores } from './test-helpers.ts';

const stores = useTempStores();

describe('openStore', () => {
  it('opens a plain file path', async () => {
    const path = join(stores.dir(), 'plain.db');
    const store = await openStore(path);
    await store.createAccount('acme', T0);
    await store.close();
    expect(existsSync(path)).toBe(true);
  });

  it('opens sqlite:<path>', async () => {
    const path = join(stores.dir(), 'data', 'prefixed.db');
    await (await openStore(`sqlite:${path}`, { createDir: true })).close();
    expect(existsSync(path)).toBe(true);
  });

  it('opens :memory: and sqlite::memory:', async () => {
    for (const url of [':memory:', 'sqlite::memory:']) {
      const store = await openStore(url);
      expect(await store.createAccount('acme', T0)).toMatchObject({ id: 1 });
      await store.close();
    }
  });

  it('postgres:// and postgresql:// are PostgreSQL URLs (opened in postgres/open.test.ts); a bad schema name is a TypeError', async () => {
    await expect(openStore('postgres://u@localhost/m?schema=Bad-Name')).rejects.toThrow(TypeError);
    await expect(openStore('postgresql://u@localhost/m?schema=x;drop')).rejects.toThrow(
      /lower-case identifier/,
    );
  });

  it('rejects other schemes and empty strings', async () => {
    await expect(openStore('mysql://localhost/x')).rejects.toThrow(/unsupported store URL scheme "mysql:"/);
    await expect(openStore('')).rejects.toThrow(TypeError);
    await expect(openStore('sqlite:')).rejects.toThrow(TypeError);
  });
});
