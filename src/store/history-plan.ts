// How both stores answer a history query (SQL-neutral): whole IST buckets from a rollup (samples_1d for
// daily buckets, samples_15m for the rest: 15-minute buckets nest in 30 m, 60 m and IST days), and the
// partial rollup bucket at either end of the range from samples, its last sample only. So a year at
// 15 minutes reads 35,040 rollup rows instead of 525,600 samples. The candidates, in ascending ts,
// become one point per output bucket: the last one wins.

import { bucketCeil, bucketStart, DAY_MS, isBucketMinutes, MINUTE_MS, QUARTER_HOUR_MS } from './buckets.ts';
import { type BucketMinutes, type HistoryPoint, SAMPLE_PROPERTIES, type SampleProperty } from './types.ts';

export interface HistoryPlan {
  rollup: 'samples_15m' | 'samples_1d';
  /** The output bucket. */
  bucketMs: number;
  /** [from, to) before the whole rollup buckets: its last sample, read from samples. */
  head: readonly [number, number];
  /** The whole rollup buckets [from, to), if any. */
  whole: readonly [number, number] | null;
  /** [from, to) after the whole rollup buckets: its last sample, read from samples. */
  tail: readonly [number, number];
}

/** The plan for `property` in [fromTs, toTs) by `bucket`; null for an empty range. */
export function historyPlan(
  property: SampleProperty,
  fromTs: number,
  toTs: number,
  bucket: BucketMinutes,
): HistoryPlan | null {
  // The property becomes a column name in the stores' SQL: only a known one passes.
  if (!SAMPLE_PROPERTIES.includes(property))
    throw new TypeError(`unknown sample property ${JSON.stringify(property)}`);
  if (!isBucketMinutes(bucket))
    throw new TypeError(`bucket must be 15, 30, 60 or 1440 minutes, not ${bucket}`);
  if (!(fromTs < toTs)) return null;

  const [rollup, rollupMs] =
    bucket === 1440 ? (['samples_1d', DAY_MS] as const) : (['samples_15m', QUARTER_HOUR_MS] as const);
  const bucketMs = bucket * MINUTE_MS;
  // The partial buckets at either end lie inside one rollup bucket each. No whole bucket: two partial
  // reads split at the rollup boundary.
  const wholeFrom = bucketCeil(fromTs, rollupMs);
  const wholeTo = bucketStart(toTs, rollupMs);
  if (wholeFrom >= wholeTo) {
    const split = Math.min(wholeFrom, toTs);
    return { rollup, bucketMs, head: [fromTs, split], whole: null, tail: [split, toTs] };
  }
  return { rollup, bucketMs, head: [fromTs, wholeFrom], whole: [wholeFrom, wholeTo], tail: [wholeTo, toTs] };
}

/** Candidates [ts, value] in ascending ts: a later one in the same output bucket replaces the earlier. */
export function lastPerBucket(
  candidates: readonly (readonly [number, number])[],
  bucketMs: number,
): HistoryPoint[] {
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
