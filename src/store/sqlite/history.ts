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

/** [bucket_start or ts, ts, value] */
type RollupTuple = [number, number, number];
type RawTuple = [number, number];

interface Queries {
  rollup15m: Database.Statement<[number, number, number], RollupTuple>;
  rollup1d: Database.Statement<[number, number, number], RollupTuple>;
  /** The last sample with the property in [from, to). */
  lastRaw: Database.Statement<[number, number, number], RawTuple>;
}

export class History {
  readonly #queries = new Map<SampleProperty, Queries>();

  constructor(db: Database.Database) {
    // The property becomes a column name, so statements are prepared once per known property and never
    // from caller input.
    for (const p of SAMPLE_PROPERTIES) {
      const rollup = (table: string) =>
        db
          .prepare<[number, number, number], RollupTuple>(`
            SELECT bucket_start, ts, ${p} FROM ${table}
            WHERE device_pk = ? AND bucket_start >= ? AND bucket_start < ? AND ${p} IS NOT NULL
            ORDER BY bucket_start`)
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
    const add = (ts: number, value: number) => {
      const start = bucketStart(ts, bucketMs);
      const last = points.at(-1);
      if (last !== undefined && last.bucketStart === start) {
        last.ts = ts;
        last.value = value;
      } else {
        points.push({ bucketStart: start, ts, value });
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
    if (bucketMs === rollupMs) {
      // One rollup row is one output bucket: no merging needed.
      for (const [start, ts, value] of rollup.all(devicePk, wholeFrom, wholeTo)) {
        points.push({ bucketStart: start, ts, value });
      }
    } else {
      for (const [, ts, value] of rollup.all(devicePk, wholeFrom, wholeTo)) add(ts, value);
    }
    addRaw(wholeTo, toTs);
    return points;
  }
}
