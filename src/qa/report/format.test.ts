// [RP-4] A declared resolution gives the report's decimal places only when it is a power of ten from
// 1 down to 1e-6; anything else a meter says (it is the meter's word) falls back to meterstack's own.

import { describe, expect, it } from 'vitest';
import { DEFAULT_PLACES, placesOf } from './format.ts';

describe('placesOf (report)', () => {
  it('a power of ten from 1 to 1e-6 gives its places', () => {
    expect([1, 0.1, 0.01, 0.001, 0.0001, 0.00001, 0.000001].map((r) => placesOf(r, 9))).toEqual([
      0, 1, 2, 3, 4, 5, 6,
    ]);
  });

  it('anything else gives the fallback', () => {
    for (const r of [0.25, 5, 10, 1e-7, 0, -0.001, Number.NaN, Number.POSITIVE_INFINITY, '0.001', null])
      expect(placesOf(r, 9), String(r)).toBe(9);
  });

  it("meterstack's own steps: 0.1 W and 1 Wh", () => {
    expect(DEFAULT_PLACES).toEqual({ power: 1, energy: 3 });
  });
});
