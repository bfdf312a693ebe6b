// History queries: the last value of a property in each IST-aligned bucket.
//
// Whole buckets are read from a rollup (samples_1d for daily buckets, samples_15m for the rest: 15-minute
// buckets nest in 30 m, 60 m and IST days), so a year at 15 minutes reads 35,040 rollup rows instead of
// 525,600 samples. When the range starts or ends inside a rollup bucket, that partial bucket is read from
// samples, limited to the range. Candidates arrive in ascending ts; the last one per output bucket wins.

import type Database from 'better-sqlite3';
import { bucketCeil, bucketStart, DAY_MS, isBucketMinutes, MINUTE_MS, QUARTER_HOUR_MS } from '../buckets.ts';
import type { BucketMinutes, HistoryPoint, SampleProperty } from '../types.ts';
import { SAMPLE_PROPERTIES } from '../types.ts';

/** [JSON array of ts, JSON array of values], ascending by bucket. */
type RollupArrays = [string, string];
/** [ts, value] */
type RawTuple = [number, number];

interface Queries {
  rollup15m: Database.Statement<[number, number, number], RollupArrays>;
  rollup1d: Database.Statement<[number, number, number], RollupArrays>;
  /** The last sample with the property in [from, to). */
  lastRaw: Database.Statement<[number, number, number], RawTuple>;
}

export class History {
  readonly #queries = new Map<SampleProperty, Queries>();

  constructor(db: Database.Database) {
    // The property becomes a column name, so statements are prepared once per known property and never
    // from caller input.
    for (const p of SAMPLE_PROPERTIES) {
      // The rollup rows come back as two JSON arrays in a single result row: for a year of 15-minute
      // buckets (35,040 rows) that is about twice as fast as one JS array per row, and JSON round-trips
      // doubles exactly. The ORDER BY subquery is a co-routine that scans the primary key in order, so the
      // arrays are ascending without a sort. PostgreSQL: json_agg(ts ORDER BY bucket_start).
      const rollup = (table: string) =>
        db
          .prepare<[number, number, number], RollupArrays>(`
            SELECT json_group_array(ts), json_group_array(${p}) FROM (
              SELECT ts, ${p} FROM ${table}
              WHERE device_pk = ? AND bucket_start >= ? AND bucket_start < ? AND ${p} IS NOT NULL
              ORDER BY bucket_start)`)
          .raw();
      this.#queries.set(p, {
        rollup15m: rollup('samples_15m'),
        rollup1d: rollup('samples_1d'),
        lastRaw: db
          .prepare<[number, number, number], RawTuple>(`
            SELECT ts, ${p} FROM samples
            WHERE device_pk = ? AND ts >= ? AND ts < ? AND ${p} IS NOT NULL
            ORDER BY ts DESC LIMIT 1`)
          .raw(),
      });
    }
  }

  /** Last value of `property` per bucket with data, for fromTs <= ts < toTs, ascending by bucket. */
  query(
    devicePk: number,
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): HistoryPoint[] {
    const q = this.#queries.get(property);
    if (q === undefined) throw new TypeError(`unknown sample property ${JSON.stringify(property)}`);
    if (!isBucketMinutes(bucket))
      throw new TypeError(`bucket must be 15, 30, 60 or 1440 minutes, not ${bucket}`);
    if (!(fromTs < toTs)) return [];

    const bucketMs = bucket * MINUTE_MS;
    const [rollup, rollupMs] = bucket === 1440 ? [q.rollup1d, DAY_MS] : [q.rollup15m, QUARTER_HOUR_MS];
    const points: HistoryPoint[] = [];
    let last: HistoryPoint | undefined;
    // Candidates come in ascending ts, so a later one in the same output bucket replaces the earlier.
    const add = (ts: number, value: number) => {
      const start = bucketStart(ts, bucketMs);
      if (last !== undefined && last.bucketStart === start) {
        last.ts = ts;
        last.value = value;
      } else {
        last = { bucketStart: start, ts, value };
        points.push(last);
      }
    };
    const addRaw = (from: number, to: number) => {
      if (from >= to) return;
      const row = q.lastRaw.get(devicePk, from, to);
      if (row !== undefined) add(row[0], row[1]);
    };

    // Whole rollup buckets are [wholeFrom, wholeTo); the partial ones at either end lie inside a single
    // rollup bucket each, so their last sample is one indexed lookup.
    const wholeFrom = bucketCeil(fromTs, rollupMs);
    const wholeTo = bucketStart(toTs, rollupMs);
    if (wholeFrom >= wholeTo) {
      const split = Math.min(wholeFrom, toTs);
      addRaw(fromTs, split);
      addRaw(split, toTs);
      return points;
    }
    addRaw(fromTs, wholeFrom);
    const [tsJson, valuesJson] = rollup.get(devicePk, wholeFrom, wholeTo)!;
    const tss: number[] = JSON.parse(tsJson);
    const values: number[] = JSON.parse(valuesJson);
    for (let i = 0; i < tss.length; i++) add(tss[i]!, values[i]!);
    addRaw(wholeTo, toTs);
    return points;
  }
}
