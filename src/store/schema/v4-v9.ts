// Migrations 4 to 9: one table or column each.

import type { SchemaMigration } from './dialect.ts';

export const v4: SchemaMigration = {
  version: 4,
  name: 'world owner lease',
  sql: () => `
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
};

export const v5: SchemaMigration = {
  version: 5,
  name: 'device reports',
  sql: (d) => `
-- Each meter's last reported info and state (MQTT contract MC-5.4), as JSON text, so an offline meter
-- shows what it last said after a restart. Upserted in batches; one row per device.
CREATE TABLE device_reports (
  device_pk ${d.ref} PRIMARY KEY REFERENCES devices (pk),
  info TEXT,
  state TEXT,
  updated_at BIGINT NOT NULL
);
`,
};

export const v6: SchemaMigration = {
  version: 6,
  name: 'durable events',
  sql: (d) => `
-- Money and meter-state events (issue 9 §3), kept beyond the in-memory journal and across restarts;
-- the newest 1,000,000 (spec-decisions 57), the oldest deleted in batches. seq is the bus's, never
-- reused (seq-reserve.ts). body: the whole event as JSON.
-- INTEGER PRIMARY KEY (SQLite: the rowid) -> PostgreSQL BIGINT PRIMARY KEY (seq comes from the bus).
CREATE TABLE events (
  seq ${d.ref} PRIMARY KEY,
  type TEXT NOT NULL,
  device_id TEXT,
  vt BIGINT NOT NULL,
  body TEXT NOT NULL
);
CREATE INDEX events_device_seq ON events (device_id, seq);
`,
};

export const v7: SchemaMigration = {
  version: 7,
  name: 'register continuity',
  sql: (d) => `
-- [MC-7.9] [MC-7.10] Per device, what joins its meter's registers into one continuous energy series:
-- the newest register epoch taken and the kWh added to every register value since (resets, rollovers,
-- replaced meters). Written before the samples it applies to (src/devices/register-continuity.ts).
CREATE TABLE register_continuity (
  device_pk ${d.ref} PRIMARY KEY REFERENCES devices (pk),
  epoch BIGINT NOT NULL,
  offset_kwh DOUBLE PRECISION NOT NULL,
  updated_at BIGINT NOT NULL
);
`,
};

export const v8: SchemaMigration = {
  version: 8,
  name: 'credit receipts',
  sql: (d) => `
-- [LEDGER-4] An external meter's answer to a ledger credit, written once when its reply comes (the
-- ledger itself stays append-only); a recharge of an external device without a row is pending.
CREATE TABLE credit_receipts (
  ledger_seq ${d.ref} PRIMARY KEY REFERENCES ledger (seq),
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
};

export const v9: SchemaMigration = {
  version: 9,
  name: 'API keys with a wall-clock expiry',
  sql: () => `
-- [CON-4] A key may also expire on the wall clock (expires_at is on the virtual clock, spec-decisions
-- 34): the console's session keys, which a clock advance must not end (spec-decisions 135).
ALTER TABLE api_keys ADD COLUMN wall_expires_at BIGINT;
`,
};
