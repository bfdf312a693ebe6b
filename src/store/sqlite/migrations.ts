// Numbered schema migrations, applied in order, each in its own transaction, recorded in schema_migrations.
// Append new migrations to the end; never edit one that has shipped.
//
// The SQL is meant to port to PostgreSQL with little change: timestamps are BIGINT milliseconds since the
// epoch, measurements DOUBLE PRECISION, money BIGINT paise, flags BOOLEAN. SQLite-only bits are commented:
//  - `INTEGER PRIMARY KEY` (a rowid alias)        -> PostgreSQL `BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY`
//  - `AUTOINCREMENT` (a seq is never reused)      -> the identity column above already never reuses values
//  - `WITHOUT ROWID` (the table is its PK B-tree) -> drop it; PostgreSQL tables are heaps with a PK index
//  - triggers with RAISE(ABORT)                   -> a trigger function that RAISEs EXCEPTION

import type Database from 'better-sqlite3';

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

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, spaces, devices',
    sql: `
CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

-- key_hash: sha256 hex of the key. Keys are 32-byte random tokens, so a fast hash is enough (no brute force
-- over such a space); the key itself is never stored.
CREATE TABLE api_keys (
  key_hash TEXT PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  created_at BIGINT NOT NULL,
  expires_at BIGINT,
  revoked_at BIGINT
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE spaces (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  name TEXT NOT NULL,
  description TEXT NOT NULL,${UDF_COLUMNS},
  -- Target of devices' (space_id, account_id) key: a device can only be in a space of its own account.
  UNIQUE (id, account_id)
);
CREATE INDEX spaces_account ON spaces (account_id);

-- pk is the stable internal key; device_id changes when a meter is replaced.
CREATE TABLE devices (
  pk INTEGER PRIMARY KEY,
  device_id TEXT NOT NULL UNIQUE,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  space_id INTEGER,
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
-- One row per (device, ts); a repeated delivery is ignored (ON CONFLICT DO NOTHING).
-- WITHOUT ROWID (SQLite-only): the table is stored as its primary-key B-tree, so a device's samples are
-- contiguous and in time order.
CREATE TABLE samples (
  device_pk INTEGER NOT NULL REFERENCES devices (pk),
  ts BIGINT NOT NULL,${PROPERTY_COLUMNS},
  PRIMARY KEY (device_pk, ts)
) WITHOUT ROWID;

-- Rollups: per device and IST-aligned bucket, a copy of the sample with the greatest ts in the bucket.
-- Written in the same transaction as samples; derived data, so no foreign key of their own.
-- 15-minute buckets nest in 30 m, 60 m and IST days (+05:30 is a multiple of 15 min), so samples_15m
-- answers 15/30/60-minute history and samples_1d answers daily history.
CREATE TABLE samples_15m (
  device_pk INTEGER NOT NULL,
  bucket_start BIGINT NOT NULL,
  ts BIGINT NOT NULL,${PROPERTY_COLUMNS},
  PRIMARY KEY (device_pk, bucket_start)
) WITHOUT ROWID;

CREATE TABLE samples_1d (
  device_pk INTEGER NOT NULL,
  bucket_start BIGINT NOT NULL,
  ts BIGINT NOT NULL,${PROPERTY_COLUMNS},
  PRIMARY KEY (device_pk, bucket_start)
) WITHOUT ROWID;
`,
  },
  {
    version: 3,
    name: 'ledger, snapshots, settings',
    sql: `
-- Append-only money ledger, amounts in integer paise. transaction_id is unique across the store
-- (NULLs do not collide, in SQLite and PostgreSQL alike).
CREATE TABLE ledger (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  device_pk INTEGER NOT NULL REFERENCES devices (pk),
  kind TEXT NOT NULL CHECK (kind IN ('opening', 'recharge', 'adjustment')),
  amount BIGINT NOT NULL,
  transaction_id TEXT UNIQUE,
  created_at BIGINT NOT NULL
);
CREATE INDEX ledger_device_seq ON ledger (device_pk, seq);
CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;
CREATE TRIGGER ledger_no_delete BEFORE DELETE ON ledger BEGIN SELECT RAISE(ABORT, 'ledger is append-only'); END;

CREATE TABLE meter_snapshots (
  device_pk INTEGER PRIMARY KEY REFERENCES devices (pk),
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
-- The world owner lease (store/README.md): at most one row, the process that runs the world on this
-- database. token is random per process start; heartbeat_at is renewed every few seconds.
-- PostgreSQL: the same row, claimed under pg_advisory_xact_lock instead of an IMMEDIATE transaction.
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
-- Each meter's last reported info and state (MQTT contract MC-5.4), as JSON text, so an offline meter
-- shows what it last said after a restart. Upserted in batches; one row per device.
CREATE TABLE device_reports (
  device_pk INTEGER PRIMARY KEY REFERENCES devices (pk),
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
-- Money and meter-state events (issue 9 §3), kept beyond the in-memory journal and across restarts;
-- the newest 1,000,000 (spec-decisions 57), the oldest deleted in batches. seq is the bus's, never
-- reused (seq-reserve.ts). body: the whole event as JSON.
-- INTEGER PRIMARY KEY (SQLite: the rowid) -> PostgreSQL BIGINT PRIMARY KEY (seq comes from the bus).
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
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
-- [MC-7.9] [MC-7.10] Per device, what joins its meter's registers into one continuous energy series:
-- the newest register epoch taken and the kWh added to every register value since (resets, rollovers,
-- replaced meters). Written before the samples it applies to (src/devices/register-continuity.ts).
CREATE TABLE register_continuity (
  device_pk INTEGER PRIMARY KEY REFERENCES devices (pk),
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
  ledger_seq INTEGER PRIMARY KEY REFERENCES ledger (seq),
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
-- [CON-4] A key may also expire on the wall clock (expires_at is on the virtual clock, spec-decisions
-- 34): the console's session keys, which a clock advance must not end (spec-decisions 135).
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

/**
 * Applies the migrations not yet recorded, in order, each in its own IMMEDIATE transaction (so two processes
 * opening the same file cannot both apply one). Returns the versions applied now.
 */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
): number[] {
  checkOrder(migrations);
  db.exec(CREATE_MIGRATIONS_TABLE);
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  const record = db.prepare<[number, string, number]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );

  const newest = db
    .prepare<[], { v: number | null }>('SELECT max(version) AS v FROM schema_migrations')
    .get()?.v;
  const known = migrations.at(-1)?.version ?? 0;
  if (newest != null && newest > known) {
    throw new Error(
      `database schema version ${newest} is newer than this build knows (${known}); upgrade meterstack`,
    );
  }

  const applied: number[] = [];
  for (const migration of migrations) {
    const apply = db.transaction(() => {
      if (isApplied.get(migration.version)) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now());
      applied.push(migration.version);
    });
    apply.immediate();
  }
  return applied;
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
