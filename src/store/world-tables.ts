// What a world snapshot holds (issue 12 §2, spec-decisions 110): every table of the world, parents
// before children. Not in it: the events journal (it keeps going, with a `world.restored` event), the
// world owner lease and the schema's own bookkeeping. Settings are in it, but the caller names the keys
// that keep their present value (the events' seq reservation: seqs never repeat).

import { APPEND_ONLY } from './schema/v3-ledger.ts';

export const WORLD_TABLES = [
  'accounts',
  'api_keys',
  'spaces',
  'devices',
  'samples',
  'samples_15m',
  'samples_1d',
  'ledger',
  'credit_receipts',
  'meter_snapshots',
  'device_reports',
  'register_continuity',
] as const;

/**
 * [SNAP-7] Snapshot names: what a file name and a URL segment can both carry as they are, starting with
 * a letter or digit (so never `.`, `..` or a hidden file), 1-64 characters.
 */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * [SNAP-4] The virtual times a snapshot may hold (its clock, when it was taken): 2000-01-01 to
 * 2100-01-01 UTC, the years this service's dates are for. Beyond them a restored clock would make the
 * meters catch up centuries of telemetry (issue 18 item 5).
 */
export const SNAPSHOT_CLOCK_MIN = Date.UTC(2000, 0, 1);
export const SNAPSHOT_CLOCK_MAX = Date.UTC(2100, 0, 1);

/** The ledger's append-only triggers in SQLite (migration 3): a restore or reset drops them inside its transaction and makes them again. */
export const LEDGER_TRIGGERS_SQLITE = APPEND_ONLY.sqlite;

/** A device's readings: what a per-device reset deletes (`deleteDeviceReadings`). */
export const READING_TABLES = [
  'samples',
  'samples_15m',
  'samples_1d',
  'device_reports',
  'register_continuity',
];

/** What a snapshot's `read()` selects, from the tables of `prefix` ('' or 'schema.'). */
export function snapshotContentsSql(prefix: string): { devices: string; meters: string; ledger: string } {
  return {
    devices: `SELECT pk, device_id AS "deviceId", kind FROM ${prefix}devices ORDER BY pk`,
    meters: `SELECT device_pk AS "devicePk", state, ledger_seq AS "ledgerSeq", updated_at AS "updatedAt" FROM ${prefix}meter_snapshots`,
    ledger: `SELECT seq, device_pk AS "devicePk", kind, amount, transaction_id AS "transactionId", created_at AS "createdAt" FROM ${prefix}ledger ORDER BY seq`,
  };
}
