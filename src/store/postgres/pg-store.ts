// The PostgreSQL Store: a pool whose every connection works in one schema, migrations run at open, and
// each method handed to the small class that owns its tables (the file split of ../sqlite/).

import pg from 'pg';
import { DEVICE_REPORTS, METER_SNAPSHOTS, REGISTER_CONTINUITY } from '../per-device-rows.ts';
import { StoreFacade } from '../store-facade.ts';
import type { WorldSnapshotInfo } from '../types.ts';
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

export class PostgresStore extends StoreFacade {
  readonly #pool: pg.Pool;
  readonly target: PostgresTarget;
  #closed = false;
  readonly #owner: WorldOwnerRow;
  readonly #world: PgWorldSnapshots;

  constructor(pool: pg.Pool, target: PostgresTarget) {
    const accounts = new Accounts({ pool });
    const owner = new WorldOwnerRow(pool);
    const world = new PgWorldSnapshots(pool, () => accounts.forget());
    super({
      accounts,
      spaces: new Spaces(pool),
      devices: new Devices(pool),
      samples: new Samples(pool),
      history: new History(pool),
      ledger: new Ledger(pool),
      receipts: new CreditReceipts(pool),
      snapshots: new PerDeviceRows(pool, METER_SNAPSHOTS),
      reports: new PerDeviceRows(pool, DEVICE_REPORTS),
      register: new PerDeviceRows(pool, REGISTER_CONTINUITY),
      events: new Events(pool),
      settings: new Settings(pool),
      owner,
      world,
    });
    this.#pool = pool;
    this.target = target;
    this.#owner = owner;
    this.#world = world;
  }

  /** Idempotent. Waits for queries in flight, then closes every connection. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }

  /** A no-op once closed, as in SQLite (a shutdown path may release after closing). */
  async releaseWorldOwner(token: string): Promise<void> {
    if (!this.#closed) await this.#owner.release(token);
  }

  async exportWorldSnapshot(name: string, file: string): Promise<boolean> {
    return exportPgSnapshot(this.#world, name, file);
  }
  async importWorldSnapshot(name: string, file: string): Promise<WorldSnapshotInfo> {
    return importPgSnapshot(this.#world, name, file);
  }
}
