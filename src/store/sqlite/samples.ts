// Telemetry samples and their rollups, written together in one transaction.
//
// A rollup row (samples_15m, samples_1d) is a copy of the sample with the greatest ts in its IST bucket.
// Samples may arrive out of order (a meter uploading its buffer), so the upsert keeps whichever row has the
// greater ts. Assumption: a device's property set is fixed (it comes from its model), so "the last sample
// in the bucket" and "the last sample in the bucket with this property" are the same sample.

import type Database from 'better-sqlite3';
import { bucketStart, DAY_MS, QUARTER_HOUR_MS } from '../buckets.ts';
import {
  assertSampleTs,
  keepLatest,
  type StoredSample,
  toSampleRow,
  VALUE_COLUMNS as VALUE_COLUMN_LIST,
} from '../sample-row.ts';
import type { SampleRow, SampleSpan } from '../types.ts';

/** Column order of every samples-shaped statement here. */
const VALUE_COLUMNS = VALUE_COLUMN_LIST.join(', ');

type Values = [
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
  number | null,
];

/** device_pk, ts, values */
type SampleTuple = [number, number, ...Values];
/** device_pk, bucket_start, ts, values */
type RollupTuple = [number, number, number, ...Values];

export class Samples {
  readonly #insert: Database.Statement<SampleTuple>;
  readonly #upsert15m: Database.Statement<RollupTuple>;
  readonly #upsert1d: Database.Statement<RollupTuple>;
  readonly #latest: Database.Statement<[number, number], StoredSample>;
  readonly #count: Database.Statement<[number], { n: number }>;
  readonly #span: Database.Statement<[number, number], { first: number | null; last: number | null }>;
  readonly #insertMany: (rows: readonly SampleRow[]) => number;

  constructor(db: Database.Database) {
    this.#insert = db.prepare(`
      INSERT INTO samples (device_pk, ts, ${VALUE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (device_pk, ts) DO NOTHING`);
    this.#upsert15m = db.prepare(rollupUpsert('samples_15m'));
    this.#upsert1d = db.prepare(rollupUpsert('samples_1d'));
    this.#latest = db.prepare(`
      SELECT device_pk, ts, ${VALUE_COLUMNS} FROM samples WHERE device_pk = ? AND ts <= ?
      ORDER BY ts DESC LIMIT 1`);
    this.#count = db.prepare('SELECT count(*) AS n FROM samples WHERE device_pk = ?');
    // Both ends of the primary key (device_pk, ts): two index seeks, not a scan.
    this.#span = db.prepare(`
      SELECT (SELECT min(ts) FROM samples WHERE device_pk = ?) AS first,
             (SELECT max(ts) FROM samples WHERE device_pk = ?) AS last`);
    this.#insertMany = db.transaction((rows: readonly SampleRow[]) => this.#write(rows));
  }

  /** Idempotent by (devicePk, ts); returns the number of rows newly written. One transaction. */
  insert(rows: readonly SampleRow[]): number {
    if (rows.length === 0) return 0;
    return this.#insertMany(rows);
  }

  latest(devicePk: number, notAfter = Number.MAX_SAFE_INTEGER): SampleRow | null {
    const row = this.#latest.get(devicePk, notAfter);
    return row ? toSampleRow(row) : null;
  }

  count(devicePk: number): number {
    return this.#count.get(devicePk)!.n;
  }

  span(devicePk: number): SampleSpan | null {
    const { first, last } = this.#span.get(devicePk, devicePk)!;
    return first === null || last === null ? null : { first, last };
  }

  #write(rows: readonly SampleRow[]): number {
    let written = 0;
    // Only the latest row per bucket touches a rollup, so a backfill of minute samples costs one rollup
    // upsert per 15 minutes, not one per sample.
    const last15m = new Map<string, SampleRow>();
    const last1d = new Map<string, SampleRow>();
    for (const row of rows) {
      assertSampleTs(row);
      written += this.#insert.run(...tuple(row)).changes;
      keepLatest(last15m, row, QUARTER_HOUR_MS);
      keepLatest(last1d, row, DAY_MS);
    }
    // A repeated (device, ts) never changes a rollup: the stored sample already made the rollup's ts >= ts,
    // and the upsert only replaces a row whose ts is strictly smaller.
    for (const row of last15m.values()) {
      this.#upsert15m.run(...rollupTuple(row, QUARTER_HOUR_MS));
    }
    for (const row of last1d.values()) {
      this.#upsert1d.run(...rollupTuple(row, DAY_MS));
    }
    return written;
  }
}

function rollupUpsert(table: string): string {
  const updates = VALUE_COLUMN_LIST.map((c) => `${c} = excluded.${c}`).join(', ');
  return `
    INSERT INTO ${table} (device_pk, bucket_start, ts, ${VALUE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (device_pk, bucket_start) DO UPDATE SET ts = excluded.ts, ${updates}
    WHERE excluded.ts > ${table}.ts`;
}

function tuple(r: SampleRow): SampleTuple {
  return [
    r.devicePk,
    r.ts,
    r.energy ?? null,
    r.active_power ?? null,
    r.voltage ?? null,
    r.current ?? null,
    r.power_factor ?? null,
    r.apparent_power ?? null,
    r.reactive_power ?? null,
    r.balance ?? null,
  ];
}

function rollupTuple(r: SampleRow, bucketMs: number): RollupTuple {
  const [devicePk, ts, ...values] = tuple(r);
  return [devicePk, bucketStart(ts, bucketMs), ts, ...values];
}
