import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IST_OFFSET_MS, toIstIso } from './ist.ts';

/** What toIstIso wrote before its day cache: one Date per call. */
const byDate = (ms: number) => `${new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 23)}+05:30`;

describe('toIstIso', () => {
  it('writes IST to the millisecond', () => {
    expect(toIstIso(Date.UTC(2026, 10, 22, 12, 59, 0, 123))).toBe('2026-11-22T18:29:00.123+05:30');
    expect(toIstIso(Date.UTC(2026, 10, 22, 18, 29, 59, 999))).toBe('2026-11-22T23:59:59.999+05:30');
    expect(toIstIso(Date.UTC(2026, 10, 22, 18, 30))).toBe('2026-11-23T00:00:00.000+05:30');
  });

  it('is the same string as Date writes, for any instant Date takes, in any order (its day cache never leaks)', () => {
    const instant = fc.oneof(
      fc.integer({ min: -8.64e15 + 1, max: 8.64e15 - IST_OFFSET_MS }),
      fc.integer({ min: 0, max: 4e12 }),
      fc.double({ min: -1e13, max: 1e13, noNaN: true }),
      fc.constantFrom(0, -1, -IST_OFFSET_MS, -IST_OFFSET_MS - 1, -62_167_219_200_000, 253_402_300_799_999),
    );
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (list) => {
        for (const ms of list) expect(toIstIso(ms)).toBe(byDate(ms));
      }),
      { numRuns: 2000 },
    );
  });

  it('throws as Date does for what is no instant', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 9e15])
      expect(() => toIstIso(bad)).toThrow(RangeError);
  });
});
