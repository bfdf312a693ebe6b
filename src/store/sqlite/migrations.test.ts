import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { seedDevice, T0, useTempStores } from '../test-helpers.ts';
import { MIGRATIONS, type Migration, migrate } from './migrations.ts';
import { openSqliteStore } from './sqlite-store.ts';

const stores = useTempStores();

function versions(path: string): { version: number; applied_at: number }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT version, applied_at FROM schema_migrations ORDER BY version').all() as {
      version: number;
      applied_at: number;
    }[];
  } finally {
    db.close();
  }
}

const m = (version: number, sql: string): Migration => ({ version, name: `m${version}`, sql });

describe('migrations', () => {
  it('a new file gets every migration, recorded in schema_migrations', async () => {
    await stores.open().close();
    expect(versions(join(stores.dir(), 'store.db')).map((r) => r.version)).toEqual(
      MIGRATIONS.map((x) => x.version),
    );
  });

  it('reopening applies nothing again and keeps the data', async () => {
    const path = join(stores.dir(), 'store.db');
    const first = stores.open();
    const device = await seedDevice(first);
    await first.close();
    const before = versions(path);

    const second = stores.open();
    expect(versions(path)).toEqual(before);
    expect(await second.getDevice(device.deviceId)).toEqual(device);
  });

  it('an existing file gets only the migrations it lacks', () => {
    const db = new Database(join(stores.dir(), 'm.db'));
    try {
      const v1 = [m(1, 'CREATE TABLE a (x INTEGER)'), m(2, 'CREATE TABLE b (x INTEGER)')];
      expect(migrate(db, v1, () => T0)).toEqual([1, 2]);
      expect(migrate(db, v1, () => T0)).toEqual([]);
      expect(migrate(db, [...v1, m(3, 'ALTER TABLE a ADD COLUMN y TEXT')], () => T0)).toEqual([3]);
      expect(db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: 3 });
    } finally {
      db.close();
    }
  });

  it('a failing migration is rolled back whole and not recorded', () => {
    const db = new Database(join(stores.dir(), 'm.db'));
    try {
      const broken = [
        m(1, 'CREATE TABLE a (x INTEGER)'),
        m(2, 'CREATE TABLE b (x INTEGER); SELECT * FROM nope'),
      ];
      expect(() => migrate(db, broken)).toThrow(/no such table: nope/);
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
      expect(tables).toEqual([{ name: 'a' }, { name: 'schema_migrations' }]);
    } finally {
      db.close();
    }
  });

  it('refuses a database written by a newer build', () => {
    const db = new Database(join(stores.dir(), 'm.db'));
    try {
      migrate(db, [m(1, 'SELECT 1'), m(2, 'SELECT 1')]);
      expect(() => migrate(db, [m(1, 'SELECT 1')])).toThrow(/schema version 2 is newer/);
    } finally {
      db.close();
    }
  });

  it('rejects a list that is not numbered 1, 2, 3, ...', () => {
    const db = new Database(':memory:');
    try {
      expect(() => migrate(db, [m(1, 'SELECT 1'), m(3, 'SELECT 1')])).toThrow(TypeError);
    } finally {
      db.close();
    }
  });
});

describe('openSqliteStore', () => {
  it('creates its directory when asked (one level) and puts the file in WAL mode', async () => {
    const path = join(stores.dir(), 'a', 'store.db');
    const store = openSqliteStore({ path, createDir: true });
    await store.close();
    expect(existsSync(path)).toBe(true);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('enforces foreign keys', async () => {
    const store = stores.open();
    await expect(
      store.insertSamples([
        {
          devicePk: 999,
          ts: T0,
          energy: 1,
          active_power: null,
          voltage: null,
          current: null,
          power_factor: null,
          apparent_power: null,
          reactive_power: null,
          balance: null,
        },
      ]),
    ).rejects.toThrow(/FOREIGN KEY/);
  });

  it('works in memory', async () => {
    const store = openSqliteStore({ path: ':memory:' });
    expect(await seedDevice(store)).toMatchObject({ pk: 1 });
    await store.close();
  });

  it('rejects a missing path', () => {
    expect(() => openSqliteStore({ path: '' })).toThrow(TypeError);
  });
});
