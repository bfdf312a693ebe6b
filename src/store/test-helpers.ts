// Test helpers: a fresh temp directory per test, real SQLite files in it; a fresh PostgreSQL schema per
// test; the two backends for the shared store suite; and a seeded account + device.
// Imported only by *.test.ts files.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach } from 'vitest';
import { openPostgresStore } from './postgres/pg-store.ts';
import {
  dropSchemas,
  freshSchemaName,
  postgresAbsence,
  runInSchema,
  schemaUrl,
} from './postgres/test-schemas.ts';
import { openSqliteStore, type SqliteStore } from './sqlite/sqlite-store.ts';
import type { DeviceRecord, NewDevice, SampleRow, Store } from './types.ts';

export interface TempStores {
  /** The test's temp directory (fresh per test, removed after it). */
  dir(): string;
  /** Opens (or reopens) a store file in the temp directory; closed after the test. */
  open(name?: string): SqliteStore;
}

export function useTempStores(): TempStores {
  let dir: string | null = null;
  const opened: SqliteStore[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'meterstack-store-'));
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    if (dir !== null) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  const tempDir = () => {
    if (dir === null) throw new Error('useTempStores: only inside a test');
    return dir;
  };
  return {
    dir: tempDir,
    open(name = 'store.db') {
      const store = openSqliteStore({ path: join(tempDir(), name) });
      opened.push(store);
      return store;
    },
  };
}

export type BackendName = 'sqlite' | 'postgres';

/** What a shared store test gets: fresh stores of one backend, cleaned up after each test. */
export interface BackendStores {
  name: BackendName;
  /** Opens (or reopens) the test's store `name` (a file, or a schema); closed after the test. */
  open(name?: string): Promise<Store>;
  /** Runs SQL on the test's store `name` from outside the Store, on a connection of its own. */
  sql(statement: string, name?: string): Promise<void>;
}

/**
 * The backends the shared store suite runs on: SQLite always; PostgreSQL when it answers (else a line
 * says it is skipped), and always under CI=true (absent is then an error). Use with
 * `describe.each(await storeBackends())('… ($name)', ({ name }) => { const stores = useStores(name); … })`.
 */
export async function storeBackends(): Promise<{ name: BackendName }[]> {
  const absent = await postgresAbsence();
  if (absent !== null) {
    console.warn(`${absent}: the PostgreSQL half of the store tests is skipped`);
    return [{ name: 'sqlite' }];
  }
  return [{ name: 'sqlite' }, { name: 'postgres' }];
}

/** Registers the per-test setup and cleanup of `backend`; call it inside the describe. */
export function useStores(backend: BackendName): BackendStores {
  if (backend === 'sqlite') {
    const temp = useTempStores();
    return {
      name: backend,
      open: async (name = 'store.db') => temp.open(name),
      async sql(statement, name = 'store.db') {
        const db = new Database(join(temp.dir(), name));
        try {
          db.exec(statement);
        } finally {
          db.close();
        }
      },
    };
  }
  let schemas = new Map<string, string>();
  const opened: Store[] = [];
  beforeEach(() => {
    schemas = new Map();
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await dropSchemas([...schemas.values()]);
  });
  const schemaOf = (name: string) => {
    let schema = schemas.get(name);
    if (schema === undefined) {
      schema = freshSchemaName('mst_store');
      schemas.set(name, schema);
    }
    return schema;
  };
  return {
    name: backend,
    async open(name = 'store.db') {
      const store = await openPostgresStore({ url: schemaUrl(schemaOf(name)), maxConnections: 4 });
      opened.push(store);
      return store;
    },
    async sql(statement, name = 'store.db') {
      await runInSchema(schemaOf(name), statement);
    },
  };
}

export const T0 = Date.UTC(2025, 0, 1); // 2025-01-01T00:00Z = 05:30 IST

/** ms since epoch of an Asia/Kolkata wall time, e.g. ist('2025-01-01T06:00') or ist('2025-01-01T06:14:59.999'). */
export function ist(wallTime: string): number {
  const ms = Date.parse(`${wallTime}+05:30`);
  if (Number.isNaN(ms)) throw new Error(`bad IST time ${wallTime}`);
  return ms;
}

export function newDevice(accountId: number, overrides: Partial<NewDevice> = {}): NewDevice {
  return {
    deviceId: 'MTR-0001',
    accountId,
    spaceId: null,
    name: 'Meter 1',
    description: '',
    model: 'basic',
    kind: 'virtual',
    mqttSecretHash: 'secret-hash',
    udf1: null,
    udf2: null,
    udf3: null,
    udf4: null,
    udf5: null,
    ...overrides,
  };
}

/** An account with one device. */
export async function seedDevice(store: Store, overrides: Partial<NewDevice> = {}): Promise<DeviceRecord> {
  const account = await store.createAccount('acme', T0);
  return store.createDevice(newDevice(account.id, overrides), T0);
}

/** A basic-meter sample (energy, active_power, voltage) whose values encode its ts, for easy assertions. */
export function sample(devicePk: number, ts: number, energy = ts / 1000): SampleRow {
  return {
    devicePk,
    ts,
    energy,
    active_power: 100,
    voltage: 230,
    current: null,
    power_factor: null,
    apparent_power: null,
    reactive_power: null,
    balance: 5000,
  };
}
