// Telemetry samples and their rollups in PostgreSQL, written together in one transaction (the rule is
// the SQLite store's: a rollup row is a copy of the sample with the greatest ts in its IST bucket, so
// out-of-order samples keep whichever row is newer).
//
// Ingest: one statement for the three tables, whatever the batch size (a single statement is its own
// transaction: one round trip and one commit, not BEGIN, three statements and COMMIT), each column
// passed as an array and read back with unnest() (no 65,535-parameter limit, one parse). Measured in
// bench/store-pg.ts against COPY into a temp table (spec-decisions 77). The arrays go as text
// written here (`{1,2,NULL}`), the form `pg` would write element by element with quotes.

import type pg from 'pg';
import { bucketStart, DAY_MS, QUARTER_HOUR_MS } from '../buckets.ts';
import { assertSampleTs, keepLatest, type StoredSample, toSampleRow, VALUE_COLUMNS } from '../sample-row.ts';
import type { SampleRow, SampleSpan } from '../types.ts';

const VALUES = VALUE_COLUMNS.join(', ');
/** unnest()'s argument casts: device_pk, ts, then the value columns. */
const SAMPLE_ARRAYS = [
  'bigint',
  'bigint',
  ...VALUE_COLUMNS.map((c) => (c === 'balance' ? 'bigint' : 'float8')),
];
/** The rollups' arrays: device_pk, bucket_start, then a sample's. */
const ROLLUP_ARRAYS = ['bigint', ...SAMPLE_ARRAYS];
const arrays = (types: string[], first: number) => types.map((t, i) => `$${first + i}::${t}[]`).join(', ');

function rollupUpsert(table: string, first: number): string {
  const updates = VALUE_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ');
  // Only a strictly newer sample replaces the row: a repeated (device, ts) never changes a rollup.
  return `
    INSERT INTO ${table} (device_pk, bucket_start, ts, ${VALUES})
    SELECT * FROM unnest(${arrays(ROLLUP_ARRAYS, first)})
    ON CONFLICT (device_pk, bucket_start) DO UPDATE SET ts = excluded.ts, ${updates}
    WHERE excluded.ts > ${table}.ts`;
}

/** The samples, then both rollups; answers how many samples were new. */
const INSERT = `
  WITH inserted AS (
    INSERT INTO samples (device_pk, ts, ${VALUES})
    SELECT * FROM unnest(${arrays(SAMPLE_ARRAYS, 1)})
    ON CONFLICT (device_pk, ts) DO NOTHING
    RETURNING 1
  ), rollup_15m AS (${rollupUpsert('samples_15m', SAMPLE_ARRAYS.length + 1)}
  ), rollup_1d AS (${rollupUpsert('samples_1d', SAMPLE_ARRAYS.length + ROLLUP_ARRAYS.length + 1)}
  )
  SELECT count(*)::int AS n FROM inserted`;

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
    const params = [
      ...columns(rows),
      ...rollupColumns(last15m, QUARTER_HOUR_MS),
      ...rollupColumns(last1d, DAY_MS),
    ];
    const { rows: out } = await this.#pool.query<{ n: number }>(INSERT, params);
    return out[0]!.n;
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

  async span(devicePk: number): Promise<SampleSpan | null> {
    // min and max of the primary key (device_pk, ts): each an index seek. bigint comes back as text.
    const { rows } = await this.#pool.query<{ first: string | null; last: string | null }>(
      'SELECT min(ts) AS first, max(ts) AS last FROM samples WHERE device_pk = $1',
      [devicePk],
    );
    const { first, last } = rows[0]!;
    return first === null || last === null ? null : { first: Number(first), last: Number(last) };
  }
}

/** The rows as one array literal per column (device_pk, ts, values), unnest()'s input. */
function columns(rows: readonly SampleRow[]): string[] {
  const out: string[][] = [[], [], ...VALUE_COLUMNS.map(() => [])];
  for (const r of rows) {
    out[0]!.push(String(r.devicePk));
    out[1]!.push(String(r.ts));
    for (let i = 0; i < VALUE_COLUMNS.length; i++) out[i + 2]!.push(element(r[VALUE_COLUMNS[i]!]));
  }
  return out.map(literal);
}

/** An array element as PostgreSQL's array input reads it: the number's shortest exact text, or NULL. */
function element(v: number | null | undefined): string {
  return v === null || v === undefined ? 'NULL' : String(v);
}

const literal = (elements: string[]) => `{${elements.join(',')}}`;

/**
 * Rollup rows sorted by (device, bucket): two transactions upserting overlapping buckets then lock
 * them in the same order and cannot deadlock.
 */
function rollupColumns(latest: Map<string, SampleRow>, bucketMs: number): string[] {
  const rows = [...latest.values()].sort((a, b) => a.devicePk - b.devicePk || a.ts - b.ts);
  const starts = literal(rows.map((r) => String(bucketStart(r.ts, bucketMs))));
  const [pks, ...rest] = columns(rows);
  return [pks!, starts, ...rest];
}
