import { describe, expect, it } from 'vitest';
import { bucketCeil, bucketStart, DAY_MS, isBucketMinutes, QUARTER_HOUR_MS } from './buckets.ts';
import { ist } from './test-helpers.ts';

const HOUR_MS = 60 * 60_000;

describe('IST bucket arithmetic', () => {
  it('a ts exactly at a bucket start belongs to that bucket; 1 ms earlier to the previous one', () => {
    const start = ist('2025-03-10T06:15');
    expect(bucketStart(start, QUARTER_HOUR_MS)).toBe(start);
    expect(bucketStart(start - 1, QUARTER_HOUR_MS)).toBe(ist('2025-03-10T06:00'));
    expect(bucketStart(start + QUARTER_HOUR_MS - 1, QUARTER_HOUR_MS)).toBe(start);
  });

  it('IST hours start at :30 UTC', () => {
    expect(bucketStart(Date.parse('2025-03-10T01:29:59.999Z'), HOUR_MS)).toBe(
      Date.parse('2025-03-10T00:30Z'),
    );
    expect(bucketStart(Date.parse('2025-03-10T01:30:00.000Z'), HOUR_MS)).toBe(
      Date.parse('2025-03-10T01:30Z'),
    );
  });

  it('IST days start at 18:30 UTC the day before', () => {
    expect(bucketStart(Date.parse('2025-03-10T18:29:59.999Z'), DAY_MS)).toBe(ist('2025-03-10T00:00'));
    expect(bucketStart(Date.parse('2025-03-10T18:30:00.000Z'), DAY_MS)).toBe(ist('2025-03-11T00:00'));
  });

  it('works before the epoch', () => {
    expect(bucketStart(ist('1969-12-31T23:59:59.999'), DAY_MS)).toBe(ist('1969-12-31T00:00'));
  });

  it('bucketCeil rounds up to a bucket start and keeps one', () => {
    expect(bucketCeil(ist('2025-03-10T06:15'), QUARTER_HOUR_MS)).toBe(ist('2025-03-10T06:15'));
    expect(bucketCeil(ist('2025-03-10T06:15:00.001'), QUARTER_HOUR_MS)).toBe(ist('2025-03-10T06:30'));
  });

  it('knows the four bucket sizes', () => {
    expect([15, 30, 60, 1440].every(isBucketMinutes)).toBe(true);
    expect(isBucketMinutes(45)).toBe(false);
    expect(isBucketMinutes('15')).toBe(false);
  });
});
