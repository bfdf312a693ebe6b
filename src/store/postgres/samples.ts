// Telemetry samples and their rollups in PostgreSQL, written together in one transaction (the rule is
// the SQLite store's: a rollup row is a copy of the sample with the greatest ts in its IST bucket, so
// out-of-order samples keep whichever row is newer).
//
// Ingest: one statement per table, whatever the batch size, by passing each column as an array and
// reading them back with unnest() (no 65,535-parameter limit, one parse, one round trip). Measured in
// bench/store-pg.ts against COPY into a temp table (spec-decisions 77).

import type pg from 'pg';
import { bucketStart, DAY_MS, QUARTER_HOUR_MS } from '../buckets.ts';
import { assertSampleTs, keepLatest, type StoredSample, toSampleRow, VALUE_COLUMNS } from '../sample-row.ts';
import type { SampleRow } from '../types.ts';
import { inTransaction } from './db.ts';

const VALUES = VALUE_COLUMNS.join(', ');
/** unnest()'s argument casts: device_pk, ts, then the value columns. */
const SAMPLE_ARRAYS = [
  'bigint',
  'bigint',
  ...VALUE_COLUMNS.map((c) => (c === 'balance' ? 'bigint' : 'float8')),
];

const INSERT_SAMPLES = `
  INSERT INTO samples (device_pk, ts, ${VALUES})
  SELECT * FROM unnest(${SAMPLE_ARRAYS.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})
  ON CONFLICT (device_pk, ts) DO NOTHING`;

function rollupUpsert(table: string): string {
  const arrays = ['bigint', ...SAMPLE_ARRAYS].map((t, i) => `$${i + 1}::${t}[]`).join(', ');
  const updates = VALUE_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ');
  // Only a strictly newer sample replaces the row: a repeated (device, ts) never changes a rollup.
  return `
    INSERT INTO ${table} (device_pk, bucket_start, ts, ${VALUES})
    SELECT * FROM unnest(${arrays})
    ON CONFLICT (device_pk, bucket_start) DO UPDATE SET ts = excluded.ts, ${updates}
    WHERE excluded.ts > ${table}.ts`;
}
const UPSERT_15M = rollupUpsert('samples_15m');
const UPSERT_1D = rollupUpsert('samples_1d');

export class Samples {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Idempotent by (devicePk, ts); returns the number of rows newly written. One transaction. */
  async insert(rows: readonly SampleRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const last15m = new Map<string, SampleRow>();
    const last1d = new Map<string, SampleRow>();
    for (const row of rows) {
      assertSampleTs(row);
      keepLatest(last15m, row, QUARTER_HOUR_MS);
      keepLatest(last1d, row, DAY_MS);
    }
    return inTransaction(this.#pool, async (c) => {
      const inserted = await c.query(INSERT_SAMPLES, columns(rows));
      await c.query(UPSERT_15M, rollupColumns(last15m, QUARTER_HOUR_MS));
      await c.query(UPSERT_1D, rollupColumns(last1d, DAY_MS));
      return inserted.rowCount ?? 0;
    });
  }

  async latest(devicePk: number, notAfter = Number.MAX_SAFE_INTEGER): Promise<SampleRow | null> {
    const { rows } = await this.#pool.query<StoredSample>(
      `SELECT device_pk, ts, ${VALUES} FROM samples WHERE device_pk = $1 AND ts <= $2 ORDER BY ts DESC LIMIT 1`,
      [devicePk, notAfter],
    );
    return rows[0] ? toSampleRow(rows[0]) : null;
  }

  async count(devicePk: number): Promise<number> {
    const { rows } = await this.#pool.query<{ n: number }>(
      'SELECT count(*) AS n FROM samples WHERE device_pk = $1',
      [devicePk],
    );
    return rows[0]!.n;
  }
}

/** The rows as one array per column (device_pk, ts, values), unnest()'s input. */
function columns(rows: readonly SampleRow[]): unknown[][] {
  const out: unknown[][] = [[], [], ...VALUE_COLUMNS.map(() => [])];
  for (const r of rows) {
    out[0]!.push(r.devicePk);
    out[1]!.push(r.ts);
    VALUE_COLUMNS.forEach((c, i) => {
      out[i + 2]!.push(r[c] ?? null);
    });
  }
  return out;
}

/**
 * Rollup rows sorted by (device, bucket): two transactions upserting overlapping buckets then lock
 * them in the same order and cannot deadlock.
 */
function rollupColumns(latest: Map<string, SampleRow>, bucketMs: number): unknown[][] {
  const rows = [...latest.values()].sort((a, b) => a.devicePk - b.devicePk || a.ts - b.ts);
  const starts = rows.map((r) => bucketStart(r.ts, bucketMs));
  const [pks, ...rest] = columns(rows);
  return [pks!, starts, ...rest];
}
