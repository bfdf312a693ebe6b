// History bucket arithmetic. Buckets are aligned to Asia/Kolkata wall time, a fixed UTC+05:30 with no DST,
// so a bucket start is plain arithmetic and needs no time-zone database.

import { DAY_MS, IST_OFFSET_MS } from '../time/ist.ts';
import type { BucketMinutes } from './types.ts';

export { DAY_MS, IST_OFFSET_MS };

export const BUCKET_MINUTES: readonly BucketMinutes[] = [15, 30, 60, 1440];
export const MINUTE_MS = 60_000;
export const QUARTER_HOUR_MS = 15 * MINUTE_MS;

/** Start (ms since epoch) of the IST-aligned bucket of `bucketMs` that holds `ts`. A ts exactly at a start belongs to that bucket. */
export function bucketStart(ts: number, bucketMs: number): number {
  return Math.floor((ts + IST_OFFSET_MS) / bucketMs) * bucketMs - IST_OFFSET_MS;
}

/** Smallest bucket start >= ts. */
export function bucketCeil(ts: number, bucketMs: number): number {
  const start = bucketStart(ts, bucketMs);
  return start === ts ? ts : start + bucketMs;
}

export function isBucketMinutes(value: unknown): value is BucketMinutes {
  return BUCKET_MINUTES.includes(value as BucketMinutes);
}
