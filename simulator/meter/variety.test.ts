// Issue 20 item 16: a fleet's meters from one load differ from each other, and the same seed makes the
// same fleet.

import { describe, expect, it } from 'vitest';
import { powerAt } from './profiles.ts';
import { T0 } from './test-helpers.ts';
import type { LoadProfile } from './types.ts';
import { fleetMeterLoad } from './variety.ts';

const household: LoadProfile = { kind: 'household', seed: 7, peakWatts: 2000 };
const fleet = (load: LoadProfile, n: number) =>
  Array.from({ length: n }, (_, i) => fleetMeterLoad(load, i + 1));
// 20:00 IST: near the evening peak, where a clone fleet reads one number.
const EVENING = T0 + 20 * 3_600_000;

describe('fleetMeterLoad', () => {
  it('gives 1,000 meters of one household load 1,000 different loads, peaks within ±25 %', () => {
    const loads = fleet(household, 1000);
    const seeds = new Set(loads.map((l) => (l.kind === 'household' ? l.seed : -1)));
    expect(seeds.size).toBe(1000);
    const peaks = loads.map((l) => (l.kind === 'household' ? l.peakWatts : 0));
    expect(Math.min(...peaks)).toBeGreaterThanOrEqual(1500);
    expect(Math.max(...peaks)).toBeLessThanOrEqual(2500);
    expect(new Set(peaks).size).toBeGreaterThan(400);
    // What a reader sees: the power at one instant differs across the fleet.
    const watts = loads.map((l) => powerAt(l, EVENING).watts);
    expect(new Set(watts).size).toBeGreaterThan(900);
  });

  it('is deterministic for a seed, and another seed makes another fleet', () => {
    expect(fleet(household, 50)).toEqual(fleet({ ...household }, 50));
    const other = fleet({ ...household, seed: 8 }, 50);
    expect(other.filter((l, i) => JSON.stringify(l) === JSON.stringify(fleet(household, 50)[i]))).toEqual([]);
  });

  it('leaves a constant load as asked for, and keeps a huge peak within the meter limit', () => {
    const lamp: LoadProfile = { kind: 'constant', watts: 500 };
    expect(fleet(lamp, 5)).toEqual(Array(5).fill(lamp));
    const big = fleet({ kind: 'household', seed: 1, peakWatts: 1_000_000 }, 200);
    expect(Math.max(...big.map((l) => (l.kind === 'household' ? l.peakWatts : 0)))).toBeLessThanOrEqual(
      1_000_000,
    );
  });
});
