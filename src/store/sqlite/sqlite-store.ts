// The SQLite Store: opens the file, sets the pragmas, applies migrations, and hands each method to the
// small class that owns its tables. better-sqlite3 is synchronous; the methods are async only to match
// the Store interface, which a networked PostgreSQL store will also implement.

import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DEVICE_REPORTS, METER_SNAPSHOTS, REGISTER_CONTINUITY } from '../per-device-rows.ts';
import { keyExpiry } from '../rows.ts';
import type {
  Account,
  BucketMinutes,
  CreditReceipt,
  DevicePatch,
  DeviceRecord,
  DeviceReport,
  HistoryPoint,
  KeyExpiry,
  LedgerEntry,
  LedgerTotal,
  MeterSnapshot,
  NewDevice,
  OwnerClaim,
  OwnerClaimResult,
  RegisterContinuityRow,
  SampleProperty,
  SampleRow,
  Space,
  SpacePatch,
  Store,
  StoredEvent,
  StoredEventQuery,
  WorldOwner,
  WorldSnapshotContents,
  WorldSnapshotInfo,
  WorldSnapshotMeta,
} from '../types.ts';
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

export class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #accounts: Accounts;
  readonly #spaces: Spaces;
  readonly #devices: Devices;
  readonly #samples: Samples;
  readonly #history: History;
  readonly #ledger: Ledger;
  readonly #receipts: CreditReceipts;
  readonly #snapshots: PerDeviceRows<MeterSnapshot>;
  readonly #settings: Settings;
  readonly #owner: WorldOwnerRow;
  readonly #reports: PerDeviceRows<DeviceReport>;
  readonly #register: PerDeviceRows<RegisterContinuityRow>;
  readonly #events: Events;
  readonly #world: SqliteWorldSnapshots;

  /** `path`: the file, beside which world snapshots are kept (':memory:': a temp directory). */
  constructor(db: Database.Database, path = ':memory:') {
    this.#db = db;
    // Other processes may write this file too (API instances, issue 11 §4): the caches watch for it.
    const writers = new OtherWriters(db);
    this.#accounts = new Accounts(db, writers);
    this.#spaces = new Spaces(db, writers);
    this.#devices = new Devices(db, writers);
    this.#samples = new Samples(db);
    this.#history = new History(db);
    this.#ledger = new Ledger(db);
    this.#receipts = new CreditReceipts(db);
    this.#snapshots = new PerDeviceRows(db, METER_SNAPSHOTS);
    this.#settings = new Settings(db);
    this.#owner = new WorldOwnerRow(db);
    this.#reports = new PerDeviceRows(db, DEVICE_REPORTS);
    this.#register = new PerDeviceRows(db, REGISTER_CONTINUITY);
    this.#events = new Events(db);
    this.#world = new SqliteWorldSnapshots(db, path, () => writers.clearAll());
  }

  /** Idempotent. Checkpoints the WAL into the main file. */
  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  async createAccount(name: string, now: number): Promise<Account> {
    return this.#accounts.create(name, now);
  }
  async getAccount(id: number): Promise<Account | null> {
    return this.#accounts.get(id);
  }
  async addApiKey(
    accountId: number,
    key: string,
    expiresAt: number | null | KeyExpiry,
    now: number,
  ): Promise<void> {
    this.#accounts.addKey(accountId, key, keyExpiry(expiresAt), now);
  }
  async accountForApiKey(key: string, now: number, wallNow = Date.now()): Promise<Account | null> {
    return this.#accounts.accountForKey(key, now, wallNow);
  }
  async revokeApiKey(key: string, now: number): Promise<boolean> {
    return this.#accounts.revokeKey(key, now);
  }

  async createSpace(space: Omit<Space, 'id'>): Promise<Space> {
    return this.#spaces.create(space);
  }
  async getSpace(id: number): Promise<Space | null> {
    return this.#spaces.get(id);
  }
  async listSpaces(accountId: number): Promise<Space[]> {
    return this.#spaces.list(accountId);
  }
  async updateSpace(id: number, patch: SpacePatch): Promise<Space | null> {
    return this.#spaces.update(id, patch);
  }

  async createDevice(device: NewDevice, now: number): Promise<DeviceRecord> {
    return this.#devices.create(device, now);
  }
  async getDevice(deviceId: string): Promise<DeviceRecord | null> {
    return this.#devices.get(deviceId);
  }
  async getDeviceByPk(pk: number): Promise<DeviceRecord | null> {
    return this.#devices.getByPk(pk);
  }
  async listDevices(filter?: { accountId?: number; spaceId?: number }): Promise<DeviceRecord[]> {
    return this.#devices.list(filter);
  }
  async updateDevice(deviceId: string, patch: DevicePatch): Promise<DeviceRecord | null> {
    return this.#devices.update(deviceId, patch);
  }
  async setMqttSecretHashes(hashes: readonly { deviceId: string; hash: string }[]): Promise<string[]> {
    return this.#devices.setMqttSecretHashes(hashes);
  }
  async mqttSecretHash(deviceId: string): Promise<string | null> {
    return this.#devices.mqttSecretHash(deviceId);
  }

  async insertSamples(rows: readonly SampleRow[]): Promise<number> {
    return this.#samples.insert(rows);
  }
  async latestSample(devicePk: number, notAfter?: number): Promise<SampleRow | null> {
    return this.#samples.latest(devicePk, notAfter);
  }
  async countSamples(devicePk: number): Promise<number> {
    return this.#samples.count(devicePk);
  }
  async history(
    devicePk: number,
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): Promise<HistoryPoint[]> {
    return this.#history.query(devicePk, property, fromTs, toTs, bucket);
  }

  async appendLedger(entry: Omit<LedgerEntry, 'seq'>): Promise<{ entry: LedgerEntry; duplicate: boolean }> {
    return this.#ledger.append(entry);
  }
  async ledgerSince(devicePk: number, afterSeq: number): Promise<LedgerEntry[]> {
    return this.#ledger.since(devicePk, afterSeq);
  }

  async ledgerTotals(devicePk?: number): Promise<LedgerTotal[]> {
    return this.#ledger.totals(devicePk);
  }
  async recordCreditReceipt(receipt: CreditReceipt): Promise<{ receipt: CreditReceipt; duplicate: boolean }> {
    return this.#receipts.record(receipt);
  }
  async creditReceipts(devicePk: number): Promise<CreditReceipt[]> {
    return this.#receipts.ofDevice(devicePk);
  }
  async pendingCredits(devicePk?: number): Promise<LedgerEntry[]> {
    return this.#receipts.pending(devicePk);
  }

  async saveMeterSnapshots(snapshots: readonly MeterSnapshot[]): Promise<void> {
    this.#snapshots.save(snapshots);
  }
  async loadMeterSnapshots(): Promise<MeterSnapshot[]> {
    return this.#snapshots.load();
  }

  async saveDeviceReports(reports: readonly DeviceReport[]): Promise<void> {
    this.#reports.save(reports);
  }
  async loadDeviceReports(): Promise<DeviceReport[]> {
    return this.#reports.load();
  }

  async saveRegisterContinuity(rows: readonly RegisterContinuityRow[]): Promise<void> {
    this.#register.save(rows);
  }
  async loadRegisterContinuity(): Promise<RegisterContinuityRow[]> {
    return this.#register.load();
  }

  async appendEvents(events: readonly StoredEvent[]): Promise<void> {
    this.#events.append(events);
  }
  async readEvents(query: StoredEventQuery): Promise<StoredEvent[]> {
    return this.#events.read(query);
  }
  async eventStats(): Promise<{ count: number; maxSeq: number }> {
    return this.#events.stats();
  }
  async deleteOldestEvents(n: number): Promise<number> {
    return this.#events.deleteOldest(n);
  }

  async getSetting(key: string): Promise<string | null> {
    return this.#settings.get(key);
  }
  async setSetting(key: string, value: string): Promise<void> {
    this.#settings.set(key, value);
  }

  async getWorldOwner(): Promise<WorldOwner | null> {
    return this.#owner.current();
  }
  async claimWorldOwner(claim: OwnerClaim): Promise<OwnerClaimResult> {
    return this.#owner.claim(claim);
  }
  async renewWorldOwner(token: string, now: number): Promise<boolean> {
    return this.#owner.renew(token, now);
  }
  async describeWorldOwner(token: string, urls: { httpUrl: string; mqttUrl: string }): Promise<void> {
    this.#owner.describe(token, urls);
  }
  async releaseWorldOwner(token: string): Promise<void> {
    if (this.#db.open) this.#owner.release(token);
  }

  async saveWorldSnapshot(name: string, meta: WorldSnapshotMeta): Promise<WorldSnapshotInfo> {
    return this.#world.save(name, meta);
  }
  async listWorldSnapshots(): Promise<WorldSnapshotInfo[]> {
    return this.#world.list();
  }
  async getWorldSnapshot(name: string): Promise<WorldSnapshotInfo | null> {
    return this.#world.get(name);
  }
  async restoreWorldSnapshot(name: string, keep: readonly string[]): Promise<WorldSnapshotInfo | null> {
    return this.#world.restore(name, keep);
  }
  async deleteWorldSnapshot(name: string): Promise<boolean> {
    return this.#world.delete(name);
  }
  async exportWorldSnapshot(name: string, file: string): Promise<boolean> {
    const from = this.#world.exportFile(name);
    if (from) copyFileSync(from, file);
    return from !== null;
  }
  async readWorldSnapshot(name: string): Promise<WorldSnapshotContents | null> {
    return this.#world.read(name);
  }
  async importWorldSnapshot(name: string, file: string): Promise<WorldSnapshotInfo> {
    return this.#world.import(name, file);
  }
  async resetWorld(keep: readonly string[]): Promise<void> {
    this.#world.reset(keep);
  }
  async deleteDeviceReadings(devicePk: number): Promise<void> {
    this.#world.deleteDeviceReadings(devicePk);
  }
}
