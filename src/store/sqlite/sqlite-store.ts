// The SQLite Store: opens the file, sets the pragmas, applies migrations, and hands each method to the
// small class that owns its tables (through ../store-facade.ts). better-sqlite3 is synchronous; the
// methods are async only to match the Store interface, which the PostgreSQL store also implements.

import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DEVICE_REPORTS, METER_SNAPSHOTS, REGISTER_CONTINUITY } from '../per-device-rows.ts';
import { StoreFacade } from '../store-facade.ts';
import type { WorldSnapshotInfo } from '../types.ts';
import { Accounts } from './accounts.ts';
import { CreditReceipts } from './credit-receipts.ts';
import { Devices, Spaces } from './devices.ts';
import { Events } from './events.ts';
import { History } from './history.ts';
import { Ledger } from './ledger.ts';
import { migrate } from './migrations.ts';
import { assertWritable, openError, prepareDatabaseDir } from './open-path.ts';
import { OtherWriters } from './other-writers.ts';
import { PerDeviceRows } from './per-device.ts';
import { Samples } from './samples.ts';
import { Settings } from './settings.ts';
import { WorldOwnerRow } from './world-owner.ts';
import { SqliteWorldSnapshots } from './world-snapshots.ts';

export interface SqliteStoreOptions {
  /** A file path or ':memory:'. Its directory must exist unless `createDir`. */
  path: string;
  /** Create the file's directory if it is missing, one level only (open-path.ts). Default false. */
  createDir?: boolean;
  /** How long a writer waits for another connection's lock before SQLITE_BUSY. Default 5000 ms. */
  busyTimeoutMs?: number;
  /** Clock for schema_migrations.applied_at. */
  now?: () => number;
}

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  if (typeof options?.path !== 'string' || options.path === '') {
    throw new TypeError('openSqliteStore: path must be a file path or ":memory:"');
  }
  const { path, busyTimeoutMs = 5000, now = Date.now } = options;
  if (path !== ':memory:') prepareDatabaseDir(path, options.createDir ?? false);
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw openError(path, err);
  }
  try {
    configure(db, busyTimeoutMs);
    if (path !== ':memory:') assertWritable(db);
    migrate(db, undefined, now);
    return new SqliteStore(db, path);
  } catch (err) {
    db.close();
    throw openError(path, err);
  }
}

function configure(db: Database.Database, busyTimeoutMs: number): void {
  db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  // WAL: readers never block the writer and a commit appends to the log instead of rewriting pages.
  db.pragma('journal_mode = WAL');
  // Durability trade-off: with WAL and synchronous=NORMAL a commit is not fsynced; the WAL is fsynced at
  // each checkpoint. A committed transaction survives a crash of this process (it is in the OS page cache),
  // and the database is never corrupted, but an OS crash or power loss can roll back the last
  // transactions committed since the previous checkpoint. synchronous=FULL would close that window at the
  // cost of an fsync per commit.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // 64 MiB page cache (negative = KiB): a year of 15-minute rollups for a few meters stays in memory.
  db.pragma('cache_size = -65536');
}

export class SqliteStore extends StoreFacade {
  readonly #db: Database.Database;
  readonly #owner: WorldOwnerRow;
  readonly #world: SqliteWorldSnapshots;

  /** `path`: the file, beside which world snapshots are kept (':memory:': a temp directory). */
  constructor(db: Database.Database, path = ':memory:') {
    // Other processes may write this file too (API instances, issue 11 §4): the caches watch for it.
    const writers = new OtherWriters(db);
    const owner = new WorldOwnerRow(db);
    const world = new SqliteWorldSnapshots(db, path, () => writers.clearAll());
    super({
      accounts: new Accounts(db, writers),
      spaces: new Spaces(db, writers),
      devices: new Devices(db, writers),
      samples: new Samples(db),
      history: new History(db),
      ledger: new Ledger(db),
      receipts: new CreditReceipts(db),
      snapshots: new PerDeviceRows(db, METER_SNAPSHOTS),
      reports: new PerDeviceRows(db, DEVICE_REPORTS),
      register: new PerDeviceRows(db, REGISTER_CONTINUITY),
      events: new Events(db),
      settings: new Settings(db),
      owner,
      world,
    });
    this.#db = db;
    this.#owner = owner;
    this.#world = world;
  }

  /** Idempotent. Checkpoints the WAL into the main file. */
  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  async releaseWorldOwner(token: string): Promise<void> {
    if (this.#db.open) this.#owner.release(token);
  }

  async exportWorldSnapshot(name: string, file: string): Promise<boolean> {
    const from = this.#world.exportFile(name);
    if (from) copyFileSync(from, file);
    return from !== null;
  }
  async importWorldSnapshot(name: string, file: string): Promise<WorldSnapshotInfo> {
    return this.#world.import(name, file);
  }
}
