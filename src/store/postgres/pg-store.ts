// The PostgreSQL Store: a pool whose every connection works in one schema, migrations run at open, and
// each method handed to the small class that owns its tables (the file split of ../sqlite/).

import pg from 'pg';
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
import { TYPES } from './db.ts';
import { Devices, Spaces } from './devices.ts';
import { Events } from './events.ts';
import { History } from './history.ts';
import { Ledger } from './ledger.ts';
import { migrate } from './migrations.ts';
import { postgresOpenError } from './open-error.ts';
import { PerDeviceRows } from './per-device.ts';
import { Samples } from './samples.ts';
import { Settings } from './settings.ts';
import { type PostgresTarget, parsePostgresUrl } from './url.ts';
import { exportPgSnapshot, importPgSnapshot } from './world-file.ts';
import { WorldOwnerRow } from './world-owner.ts';
import { PgWorldSnapshots } from './world-snapshots.ts';

export interface PostgresStoreOptions {
  /** postgres://user:pass@host:port/database[?schema=NAME] (url.ts). */
  url: string;
  /** How long to wait for the server before giving up with a StoreOpenError. Default 5000 ms. */
  connectTimeoutMs?: number;
  /** Pooled connections. Default 10. */
  maxConnections?: number;
  /** Clock for schema_migrations.applied_at. */
  now?: () => number;
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const target = parsePostgresUrl(options.url);
  const { connectTimeoutMs = 5000, maxConnections = 10, now = Date.now } = options;
  const pool = new pg.Pool({
    connectionString: target.connectionString,
    connectionTimeoutMillis: connectTimeoutMs,
    max: maxConnections,
    types: TYPES,
    // Every pooled connection starts in our schema (then public, for extensions); set at connect time
    // as a startup parameter, so no query ever runs on a connection that has not got it.
    ...(target.schema === null ? {} : { options: `-c search_path=${target.schema},public` }),
    application_name: 'meterstack',
  });
  // An idle connection the server closed (restart, pg_terminate_backend) errors on the pool; without a
  // listener that would crash the process. The next query gets a fresh connection or a clear error.
  pool.on('error', () => {});
  try {
    if (target.schema !== null) await createSchema(pool, target.schema);
    await migrate(pool, undefined, now);
    return new PostgresStore(pool, target);
  } catch (err) {
    await pool.end().catch(() => {});
    throw postgresOpenError(target, err, connectTimeoutMs);
  }
}

/** CREATE SCHEMA IF NOT EXISTS races with a twin doing the same; the lock makes it one at a time. */
async function createSchema(pool: pg.Pool, schema: string): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    await c.query('SELECT pg_advisory_xact_lock(hashtext($1), 0)', [schema]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`); // a checked identifier (url.ts)
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    c.release();
  }
}

export class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly target: PostgresTarget;
  #closed = false;
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
  readonly #world: PgWorldSnapshots;

  constructor(pool: pg.Pool, target: PostgresTarget) {
    this.#pool = pool;
    this.target = target;
    this.#accounts = new Accounts({ pool });
    this.#spaces = new Spaces(pool);
    this.#devices = new Devices(pool);
    this.#samples = new Samples(pool);
    this.#history = new History(pool);
    this.#ledger = new Ledger(pool);
    this.#receipts = new CreditReceipts(pool);
    this.#snapshots = new PerDeviceRows(pool, METER_SNAPSHOTS);
    this.#settings = new Settings(pool);
    this.#owner = new WorldOwnerRow(pool);
    this.#reports = new PerDeviceRows(pool, DEVICE_REPORTS);
    this.#register = new PerDeviceRows(pool, REGISTER_CONTINUITY);
    this.#events = new Events(pool);
    this.#world = new PgWorldSnapshots(pool, () => this.#accounts.forget());
  }

  /** Idempotent. Waits for queries in flight, then closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  createAccount(name: string, now: number): Promise<Account> {
    return this.#accounts.create(name, now);
  }
  getAccount(id: number): Promise<Account | null> {
    return this.#accounts.get(id);
  }
  addApiKey(
    accountId: number,
    key: string,
    expiresAt: number | null | KeyExpiry,
    now: number,
  ): Promise<void> {
    return this.#accounts.addKey(accountId, key, keyExpiry(expiresAt), now);
  }
  accountForApiKey(key: string, now: number, wallNow = Date.now()): Promise<Account | null> {
    return this.#accounts.accountForKey(key, now, wallNow);
  }
  revokeApiKey(key: string, now: number): Promise<boolean> {
    return this.#accounts.revokeKey(key, now);
  }

  createSpace(space: Omit<Space, 'id'>): Promise<Space> {
    return this.#spaces.create(space);
  }
  getSpace(id: number): Promise<Space | null> {
    return this.#spaces.get(id);
  }
  listSpaces(accountId: number): Promise<Space[]> {
    return this.#spaces.list(accountId);
  }
  updateSpace(id: number, patch: SpacePatch): Promise<Space | null> {
    return this.#spaces.update(id, patch);
  }

  createDevice(device: NewDevice, now: number): Promise<DeviceRecord> {
    return this.#devices.create(device, now);
  }
  getDevice(deviceId: string): Promise<DeviceRecord | null> {
    return this.#devices.get(deviceId);
  }
  getDeviceByPk(pk: number): Promise<DeviceRecord | null> {
    return this.#devices.getByPk(pk);
  }
  listDevices(filter?: { accountId?: number; spaceId?: number }): Promise<DeviceRecord[]> {
    return this.#devices.list(filter);
  }
  updateDevice(deviceId: string, patch: DevicePatch): Promise<DeviceRecord | null> {
    return this.#devices.update(deviceId, patch);
  }
  setMqttSecretHashes(hashes: readonly { deviceId: string; hash: string }[]): Promise<string[]> {
    return this.#devices.setMqttSecretHashes(hashes);
  }
  mqttSecretHash(deviceId: string): Promise<string | null> {
    return this.#devices.mqttSecretHash(deviceId);
  }

  insertSamples(rows: readonly SampleRow[]): Promise<number> {
    return this.#samples.insert(rows);
  }
  latestSample(devicePk: number, notAfter?: number): Promise<SampleRow | null> {
    return this.#samples.latest(devicePk, notAfter);
  }
  countSamples(devicePk: number): Promise<number> {
    return this.#samples.count(devicePk);
  }
  history(
    devicePk: number,
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): Promise<HistoryPoint[]> {
    return this.#history.query(devicePk, property, fromTs, toTs, bucket);
  }

  appendLedger(entry: Omit<LedgerEntry, 'seq'>): Promise<{ entry: LedgerEntry; duplicate: boolean }> {
    return this.#ledger.append(entry);
  }
  ledgerSince(devicePk: number, afterSeq: number): Promise<LedgerEntry[]> {
    return this.#ledger.since(devicePk, afterSeq);
  }
  ledgerTotals(devicePk?: number): Promise<LedgerTotal[]> {
    return this.#ledger.totals(devicePk);
  }
  recordCreditReceipt(receipt: CreditReceipt): Promise<{ receipt: CreditReceipt; duplicate: boolean }> {
    return this.#receipts.record(receipt);
  }
  creditReceipts(devicePk: number): Promise<CreditReceipt[]> {
    return this.#receipts.ofDevice(devicePk);
  }
  pendingCredits(devicePk?: number): Promise<LedgerEntry[]> {
    return this.#receipts.pending(devicePk);
  }

  saveMeterSnapshots(snapshots: readonly MeterSnapshot[]): Promise<void> {
    return this.#snapshots.save(snapshots);
  }
  loadMeterSnapshots(): Promise<MeterSnapshot[]> {
    return this.#snapshots.load();
  }

  saveDeviceReports(reports: readonly DeviceReport[]): Promise<void> {
    return this.#reports.save(reports);
  }
  loadDeviceReports(): Promise<DeviceReport[]> {
    return this.#reports.load();
  }

  saveRegisterContinuity(rows: readonly RegisterContinuityRow[]): Promise<void> {
    return this.#register.save(rows);
  }
  loadRegisterContinuity(): Promise<RegisterContinuityRow[]> {
    return this.#register.load();
  }

  appendEvents(events: readonly StoredEvent[]): Promise<void> {
    return this.#events.append(events);
  }
  readEvents(query: StoredEventQuery): Promise<StoredEvent[]> {
    return this.#events.read(query);
  }
  eventStats(): Promise<{ count: number; maxSeq: number }> {
    return this.#events.stats();
  }
  deleteOldestEvents(n: number): Promise<number> {
    return this.#events.deleteOldest(n);
  }

  getSetting(key: string): Promise<string | null> {
    return this.#settings.get(key);
  }
  setSetting(key: string, value: string): Promise<void> {
    return this.#settings.set(key, value);
  }

  getWorldOwner(): Promise<WorldOwner | null> {
    return this.#owner.current();
  }
  claimWorldOwner(claim: OwnerClaim): Promise<OwnerClaimResult> {
    return this.#owner.claim(claim);
  }
  renewWorldOwner(token: string, now: number): Promise<boolean> {
    return this.#owner.renew(token, now);
  }
  describeWorldOwner(token: string, urls: { httpUrl: string; mqttUrl: string }): Promise<void> {
    return this.#owner.describe(token, urls);
  }
  /** A no-op once closed, as in SQLite (a shutdown path may release after closing). */
  async releaseWorldOwner(token: string): Promise<void> {
    if (!this.#closed) await this.#owner.release(token);
  }

  saveWorldSnapshot(name: string, meta: WorldSnapshotMeta): Promise<WorldSnapshotInfo> {
    return this.#world.save(name, meta);
  }
  listWorldSnapshots(): Promise<WorldSnapshotInfo[]> {
    return this.#world.list();
  }
  getWorldSnapshot(name: string): Promise<WorldSnapshotInfo | null> {
    return this.#world.get(name);
  }
  restoreWorldSnapshot(name: string, keep: readonly string[]): Promise<WorldSnapshotInfo | null> {
    return this.#world.restore(name, keep);
  }
  deleteWorldSnapshot(name: string): Promise<boolean> {
    return this.#world.delete(name);
  }
  exportWorldSnapshot(name: string, file: string): Promise<boolean> {
    return exportPgSnapshot(this.#world, name, file);
  }
  readWorldSnapshot(name: string): Promise<WorldSnapshotContents | null> {
    return this.#world.read(name);
  }
  importWorldSnapshot(name: string, file: string): Promise<WorldSnapshotInfo> {
    return importPgSnapshot(this.#world, name, file);
  }
  resetWorld(keep: readonly string[]): Promise<void> {
    return this.#world.reset(keep);
  }
  deleteDeviceReadings(devicePk: number): Promise<void> {
    return this.#world.deleteDeviceReadings(devicePk);
  }
}
