// A sample as the stores keep it: the row of the samples table and its rollups, and the rules both
// stores apply before writing one (SQL-neutral).

import type { Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { bucketStart } from './buckets.ts';
import { SAMPLE_PROPERTIES, type SampleRow } from './types.ts';

/** A meter's sample (contract MC-7.4 / the domain's Sample) as the row stored for `devicePk`. */
export function sampleRow(devicePk: number, s: Omit<Sample, 'balance'> & { balance?: number }): SampleRow {
  return {
    devicePk,
    ts: s.ts,
    energy: s.energy,
    active_power: s.active_power,
    voltage: s.voltage,
    current: s.current ?? null,
    power_factor: s.power_factor ?? null,
    apparent_power: s.apparent_power ?? null,
    reactive_power: s.reactive_power ?? null,
    balance: s.balance ?? null,
  };
}

/** The value columns of samples and its rollups, in the order of every samples-shaped statement. */
export const VALUE_COLUMNS = [...SAMPLE_PROPERTIES, 'balance'] as const;

/** A row of samples as read: SampleRow but for the key's column name. */
export type StoredSample = Omit<SampleRow, 'devicePk'> & { device_pk: number };

export function toSampleRow(r: StoredSample): SampleRow {
  return {
    devicePk: r.device_pk,
    ts: r.ts,
    energy: r.energy,
    active_power: r.active_power,
    voltage: r.voltage,
    current: r.current,
    power_factor: r.power_factor,
    apparent_power: r.apparent_power,
    reactive_power: r.reactive_power,
    balance: r.balance,
  };
}

export function assertSampleTs(row: SampleRow): void {
  if (!Number.isSafeInteger(row.ts)) throw new TypeError(`sample ts must be integer ms, not ${row.ts}`);
}

/**
 * Keeps, per device and bucket, the row with the greatest ts: only it touches a rollup, so a backfill of
 * minute samples costs one rollup upsert per 15 minutes, not one per sample.
 */
export function keepLatest(latest: Map<string, SampleRow>, row: SampleRow, bucketMs: number): void {
  const key = `${row.devicePk}:${bucketStart(row.ts, bucketMs)}`;
  const seen = latest.get(key);
  // Strictly greater: of two rows with the same ts the first wins, as in the samples table.
  if (seen === undefined || row.ts > seen.ts) latest.set(key, row);
}
