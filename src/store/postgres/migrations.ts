// Numbered schema migrations for PostgreSQL, the same versions and tables as sqlite/migrations.ts in
// PostgreSQL's dialect. Applied in order, each in its own transaction, recorded in schema_migrations.
// Append new migrations to the end, in both files; never edit one that has shipped.
//
// Two processes starting at once: the runner holds a transaction advisory lock per migration and
// re-checks schema_migrations under it, so exactly one applies each (DDL is transactional here).

import type pg from 'pg';
import { advisoryXactLock, inTransaction, LOCK } from './db.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const PROPERTY_COLUMNS = `
  energy DOUBLE PRECISION,
  active_power DOUBLE PRECISION,
  voltage DOUBLE PRECISION,
  current DOUBLE PRECISION,
  power_factor DOUBLE PRECISION,
  apparent_power DOUBLE PRECISION,
  reactive_power DOUBLE PRECISION,
  balance BIGINT`;

const UDF_COLUMNS = `
  udf1 TEXT,
  udf2 TEXT,
  udf3 TEXT,
  udf4 TEXT,
  udf5 TEXT`;

const ID = 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY';

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, spaces, devices',
    sql: `
CREATE TABLE accounts (
  id ${ID},
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE TABLE api_keys (
  key_hash TEXT PRIMARY KEY,
  account_id BIGINT NOT NULL REFERENCES accounts (id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  revoked_at BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);
CREATE TABLE spaces (
  id ${ID},
  account_id BIGINT NOT NULL REFERENCES accounts (id),
  name TEXT NOT NULL,
  description TEXT NOT NULL,${UDF_COLUMNS},
  UNIQUE (id, account_id)
);
CREATE INDEX spaces_account ON spaces (account_id);
CREATE TABLE devices (
  pk ${ID},
  device_id TEXT NOT NULL UNIQUE,
  account_id BIGINT NOT NULL REFERENCES accounts (id),
  space_id BIGINT,
  name TEXT NOT NULL,
  description TEXT NOT NULL,
  model TEXT NOT NULL CHECK (model IN ('basic', 'full')),
  kind TEXT NOT NULL CHECK (kind IN ('virtual', 'external')),
  public_access BOOLEAN NOT NULL DEFAULT FALSE,
  public_hash TEXT,
  is_shared BOOLEAN NOT NULL DEFAULT FALSE,
  mqtt_secret_hash TEXT NOT NULL,${UDF_COLUMNS},
  created_at BIGINT NOT NULL,
  FOREIGN KEY (space_id, account_id) REFERENCES spaces (id, account_id)
);
CREATE INDEX devices_account ON devices (account_id);
CREATE INDEX devices_space ON devices (space_id);
`,
  },
  {
    version: 2,
    name: 'samples and rollups',
    sql: `
-- A heap with a (device_pk, ts) primary key; the rollups answer long ranges, so the heap's order
-- matters little (sqlite's WITHOUT ROWID has no PostgreSQL equivalent).
CREATE TABLE samples (
  device_pk BIGINT NOT NULL REFERENCES devices (pk),
  ts BIGINT NOT NULL,${PROPERTY_COLUMNS},
  PRIMARY KEY (device_pk, ts)
);
CREATE TABLE samples_15m (
  device_pk BIGINT NOT NULL,
  bucket_start BIGINT NOT NULL,
  ts BIGINT NOT NULL,${PROPERTY_COLUMNS},
  PRIMARY KEY (device_pk, bucket_start)
);
CREATE TABLE samples_1d (
  device_pk BIGINT NOT NULL,
  bucket_start BIGINT NOT NULL,
  ts BIGINT NOT NULL,${PROPERTY_COLUMNS},
  PRIMARY KEY (device_pk, bucket_start)
);
`,
  },
  {
    version: 3,
    name: 'ledger, snapshots, settings',
    sql: `
CREATE TABLE ledger (
  seq ${ID},
  device_pk BIGINT NOT NULL REFERENCES devices (pk),
  kind TEXT NOT NULL CHECK (kind IN ('opening', 'recharge', 'adjustment')),
  amount BIGINT NOT NULL,
  transaction_id TEXT UNIQUE,
  created_at BIGINT NOT NULL
);
CREATE INDEX ledger_device_seq ON ledger (device_pk, seq);
-- Append-only: UPDATE, DELETE and TRUNCATE raise (the SQLite triggers' RAISE(ABORT) in plpgsql).
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger is append-only';
END $$;
CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON ledger
  FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ledger
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
CREATE TABLE meter_snapshots (
  device_pk BIGINT PRIMARY KEY REFERENCES devices (pk),
  state TEXT NOT NULL,
  ledger_seq BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'world owner lease',
    sql: `
CREATE TABLE world_owner (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  token TEXT NOT NULL,
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  since BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL,
  http_url TEXT,
  mqtt_url TEXT
);
`,
  },
  {
    version: 5,
    name: 'device reports',
    sql: `
CREATE TABLE device_reports (
  device_pk BIGINT PRIMARY KEY REFERENCES devices (pk),
  info TEXT,
  state TEXT,
  updated_at BIGINT NOT NULL
);
`,
  },
  {
    version: 6,
    name: 'durable events',
    sql: `
CREATE TABLE events (
  seq BIGINT PRIMARY KEY,
  type TEXT NOT NULL,
  device_id TEXT,
  vt BIGINT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX events_device_seq ON events (device_id, seq);
`,
  },
  {
    version: 7,
    name: 'register continuity',
    sql: `
CREATE TABLE register_continuity (
  device_pk BIGINT PRIMARY KEY REFERENCES devices (pk),
  epoch BIGINT NOT NULL,
  offset_kwh DOUBLE PRECISION NOT NULL,
  updated_at BIGINT NOT NULL
);
`,
  },
  {
    version: 8,
    name: 'credit receipts',
    sql: `
-- [LEDGER-4] An external meter's answer to a ledger credit, written once when its reply comes (the
-- ledger itself stays append-only); a recharge of an external device without a row is pending.
CREATE TABLE credit_receipts (
  ledger_seq BIGINT PRIMARY KEY REFERENCES ledger (seq),
  device_pk BIGINT NOT NULL REFERENCES devices (pk),
  outcome TEXT NOT NULL CHECK (outcome IN ('applied', 'refused')),
  balance_before BIGINT,
  balance_after BIGINT,
  allowance BIGINT NOT NULL,
  reason TEXT,
  received_at BIGINT NOT NULL
);
CREATE INDEX credit_receipts_device ON credit_receipts (device_pk, ledger_seq);
`,
  },
  {
    version: 9,
    name: 'API keys with a wall-clock expiry',
    sql: `
ALTER TABLE api_keys ADD COLUMN wall_expires_at BIGINT;
`,
  },
];

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

/** Applies the migrations not yet recorded, in order; returns the versions applied now. */
export async function migrate(
  pool: pg.Pool,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
): Promise<number[]> {
  checkOrder(migrations);
  // CREATE TABLE IF NOT EXISTS is not safe against a concurrent twin (it can fail on pg_type's
  // unique index), so it runs under the same lock as the migrations.
  await inTransaction(pool, async (c) => {
    await advisoryXactLock(c, LOCK.migrate);
    await c.query(CREATE_MIGRATIONS_TABLE);
  });
  const applied: number[] = [];
  for (const migration of migrations) {
    await inTransaction(pool, async (c) => {
      await advisoryXactLock(c, LOCK.migrate);
      if (migration === migrations[0]) await assertNotNewer(c, migrations);
      const seen = await c.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (seen.rowCount) return;
      await c.query(migration.sql);
      await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        now(),
      ]);
      applied.push(migration.version);
    });
  }
  return applied;
}

async function assertNotNewer(c: pg.PoolClient, migrations: readonly Migration[]): Promise<void> {
  const { rows } = await c.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
  const newest = rows[0]?.v ?? null;
  const known = migrations.at(-1)?.version ?? 0;
  if (newest !== null && newest > known) {
    throw new Error(
      `database schema version ${newest} is newer than this build knows (${known}); upgrade meterstack`,
    );
  }
}

function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (!Number.isInteger(m.version) || m.version !== i + 1) {
      throw new TypeError(
        `migration #${i + 1} has version ${m.version}; versions must be 1, 2, 3, ... in order`,
      );
    }
  });
}
