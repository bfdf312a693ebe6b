// History queries on PostgreSQL: the same plan as sqlite/history.ts (whole buckets from a rollup, the
// partial bucket at either end from samples), so the answers are identical for the same data.

import type pg from 'pg';
import { bucketCeil, bucketStart, DAY_MS, isBucketMinutes, MINUTE_MS, QUARTER_HOUR_MS } from '../buckets.ts';
import type { BucketMinutes, HistoryPoint, SampleProperty } from '../types.ts';
import { SAMPLE_PROPERTIES } from '../types.ts';

interface Queries {
  rollup15m: string;
  rollup1d: string;
  lastRaw: string;
}

/** The property becomes a column name, so the SQL is built once per known property, never from input. */
const QUERIES = new Map<SampleProperty, Queries>(
  SAMPLE_PROPERTIES.map((p) => {
    // Two arrays in one row (json_agg, parsed by pg) instead of a row per bucket: far fewer JS objects
    // for a year of 15-minute buckets. float8 and bigint round-trip exactly through JSON.
    const rollup = (table: string) => `
      SELECT coalesce(json_agg(ts ORDER BY bucket_start), '[]') AS ts,
             coalesce(json_agg(${p} ORDER BY bucket_start), '[]') AS v
      FROM ${table}
      WHERE device_pk = $1 AND bucket_start >= $2 AND bucket_start < $3 AND ${p} IS NOT NULL`;
    return [
      p,
      {
        rollup15m: rollup('samples_15m'),
        rollup1d: rollup('samples_1d'),
        lastRaw: `SELECT ts, ${p} AS v FROM samples
          WHERE device_pk = $1 AND ts >= $2 AND ts < $3 AND ${p} IS NOT NULL ORDER BY ts DESC LIMIT 1`,
      },
    ];
  }),
);

export class History {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async query(
    devicePk: number,
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): Promise<HistoryPoint[]> {
    const q = QUERIES.get(property);
    if (q === undefined) throw new TypeError(`unknown sample property ${JSON.stringify(property)}`);
    if (!isBucketMinutes(bucket))
      throw new TypeError(`bucket must be 15, 30, 60 or 1440 minutes, not ${bucket}`);
    if (!(fromTs < toTs)) return [];

    const bucketMs = bucket * MINUTE_MS;
    const [rollupSql, rollupMs] = bucket === 1440 ? [q.rollup1d, DAY_MS] : [q.rollup15m, QUARTER_HOUR_MS];
    const lastRaw = async (from: number, to: number): Promise<[number, number][]> => {
      if (from >= to) return [];
      const { rows } = await this.#pool.query<{ ts: number; v: number }>(q.lastRaw, [devicePk, from, to]);
      return rows.map((r) => [r.ts, r.v]);
    };

    const wholeFrom = bucketCeil(fromTs, rollupMs);
    const wholeTo = bucketStart(toTs, rollupMs);
    let candidates: [number, number][];
    if (wholeFrom >= wholeTo) {
      const split = Math.min(wholeFrom, toTs);
      const [a, b] = await Promise.all([lastRaw(fromTs, split), lastRaw(split, toTs)]);
      candidates = [...a, ...b];
    } else {
      // The three reads are independent; on a pool they run on separate connections at once.
      const [head, whole, tail] = await Promise.all([
        lastRaw(fromTs, wholeFrom),
        this.#pool.query<{ ts: number[]; v: number[] }>(rollupSql, [devicePk, wholeFrom, wholeTo]),
        lastRaw(wholeTo, toTs),
      ]);
      const { ts, v } = whole.rows[0]!;
      candidates = [...head, ...ts.map((t, i): [number, number] => [t, v[i]!]), ...tail];
    }
    return lastPerBucket(candidates, bucketMs);
  }
}

/** Candidates in ascending ts: a later one in the same output bucket replaces the earlier. */
function lastPerBucket(candidates: readonly [number, number][], bucketMs: number): HistoryPoint[] {
  const points: HistoryPoint[] = [];
  let last: HistoryPoint | undefined;
  for (const [ts, value] of candidates) {
    const start = bucketStart(ts, bucketMs);
    if (last !== undefined && last.bucketStart === start) {
      last.ts = ts;
      last.value = value;
    } else {
      last = { bucketStart: start, ts, value };
      points.push(last);
    }
  }
  return points;
}
