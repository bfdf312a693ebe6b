// Tables of one row per device, upserted in batches and loaded whole (meter snapshots, last reports,
// register continuity): described once, so each store has one small class for all three
// (sqlite/per-device.ts, postgres/per-device.ts). SQL-neutral: the stores add their placeholders.

import type { DeviceReport, MeterSnapshot, RegisterContinuityRow } from './types.ts';

/** A record's field, its column, and the column's PostgreSQL type (for unnest()'s array casts). */
type Field<T> = readonly [field: keyof T & string, column: string, pgType: 'bigint' | 'text' | 'float8'];

export interface PerDeviceTable<T extends { devicePk: number }> {
  table: string;
  /** In column order, device_pk (the key) first. */
  fields: readonly Field<T>[];
}

export const METER_SNAPSHOTS: PerDeviceTable<MeterSnapshot> = {
  table: 'meter_snapshots',
  fields: [
    ['devicePk', 'device_pk', 'bigint'],
    ['state', 'state', 'text'],
    ['ledgerSeq', 'ledger_seq', 'bigint'],
    ['updatedAt', 'updated_at', 'bigint'],
  ],
};

/** Meters' last reported info and state (MC-5.4), saved in batches by the twins. */
export const DEVICE_REPORTS: PerDeviceTable<DeviceReport> = {
  table: 'device_reports',
  fields: [
    ['devicePk', 'device_pk', 'bigint'],
    ['info', 'info', 'text'],
    ['state', 'state', 'text'],
    ['updatedAt', 'updated_at', 'bigint'],
  ],
};

/** [MC-7.9] [MC-7.10] Each device's register continuity (epoch, offset). */
export const REGISTER_CONTINUITY: PerDeviceTable<RegisterContinuityRow> = {
  table: 'register_continuity',
  fields: [
    ['devicePk', 'device_pk', 'bigint'],
    ['epoch', 'epoch', 'bigint'],
    ['offsetKwh', 'offset_kwh', 'float8'],
    ['updatedAt', 'updated_at', 'bigint'],
  ],
};

/** The upsert of rows given by `source` (a VALUES list or a SELECT): a device's new row replaces its old. */
export function upsertSql<T extends { devicePk: number }>(t: PerDeviceTable<T>, source: string): string {
  const [, ...rest] = t.fields.map(([, column]) => column);
  return `INSERT INTO ${t.table} (${t.fields.map(([, column]) => column).join(', ')}) ${source}
    ON CONFLICT (device_pk) DO UPDATE SET ${rest.map((c) => `${c} = excluded.${c}`).join(', ')}`;
}

/** Every row as records, in device order. */
export function selectSql<T extends { devicePk: number }>(t: PerDeviceTable<T>): string {
  const columns = t.fields.map(([field, column]) => (field === column ? column : `${column} AS "${field}"`));
  return `SELECT ${columns.join(', ')} FROM ${t.table} ORDER BY device_pk`;
}

/** A record's values in column order. */
export function rowValues<T extends { devicePk: number }>(t: PerDeviceTable<T>, row: T): unknown[] {
  return t.fields.map(([field]) => row[field]);
}
