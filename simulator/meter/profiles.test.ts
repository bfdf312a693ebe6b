// [M-4] Loads: constant and the seeded household curve (IST, UTC+05:30), plus the seeded hash.

import { describe, expect, it } from 'vitest';
import { nextLoadChange, powerAt, powerMw, validateLoad } from './profiles.ts';
import { hash32, unitAt } from './rng.ts';
import { DAY, HOUR, MINUTE, T0 } from './test-helpers.ts';
import type { LoadProfile } from './types.ts';

const PEAK = 5000;
const house: LoadProfile = { kind: 'household', seed: 2024, peakWatts: PEAK };

/** Mean fraction of peak over IST hours [from, to) across 60 days (T0 is an IST midnight). */
function meanShare(load: LoadProfile, from: number, to: number): number {
  let sum = 0;
  let n = 0;
  for (let d = 0; d < 60; d++) {
    for (let t = T0 + d * DAY + from * HOUR; t < T0 + d * DAY + to * HOUR; t += MINUTE) {
      sum += powerAt(load, t).watts;
      n++;
    }
  }
  return sum / n / PEAK;
}

describe('constant load', () => {
  it.each([
    [1234.5678, undefined, 1234.568, 0.95],
    [0, 0.5, 0, 0.5],
    [10, 0, 10, 0.1],
    [10, 1.7, 10, 1],
    [10, 0.98765, 10, 0.988],
  ])('%s W at PF %s -> %s W at PF %s', (watts, powerFactor, w, pf) => {
    const load: LoadProfile = {
      kind: 'constant',
      watts,
      ...(powerFactor === undefined ? {} : { powerFactor }),
    };
    expect(powerAt(load, T0)).toEqual({ watts: w, powerFactor: pf });
    expect(powerMw(load, T0)).toBe(Math.round(w * 1000));
    expect(nextLoadChange(load, T0)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('household daily curve (Asia/Kolkata local time)', () => {
  it.each([
    ['night 01:00-05:00', 1, 5, 0.08, 0.16],
    ['morning peak 07:00-09:00', 7, 9, 0.5, 0.75],
    ['midday 11:00-16:00', 11, 16, 0.25, 0.45],
    ['evening peak 19:00-22:00', 19, 22, 0.8, 1],
  ])('%s: mean %s..%s of peak', (_name, from, to, lo, hi) => {
    const share = meanShare(house, from, to);
    expect(share).toBeGreaterThanOrEqual(lo);
    expect(share).toBeLessThanOrEqual(hi);
  });

  it('never exceeds the peak; power factor stays within 0.85..0.99', () => {
    const watts: number[] = [];
    const pfs: number[] = [];
    for (let t = T0; t < T0 + 7 * DAY; t += MINUTE) {
      const p = powerAt(house, t);
      watts.push(p.watts);
      pfs.push(p.powerFactor);
    }
    expect(Math.max(...watts)).toBeLessThanOrEqual(PEAK);
    expect(Math.max(...watts)).toBeGreaterThan(0.95 * PEAK);
    expect(Math.min(...watts)).toBeGreaterThan(0);
    expect(Math.min(...pfs)).toBeGreaterThanOrEqual(0.85);
    expect(Math.max(...pfs)).toBeLessThanOrEqual(0.99);
  });

  it('is constant within a minute and may change at the next', () => {
    const t = T0 + 123 * MINUTE;
    expect(powerMw(house, t)).toBe(powerMw(house, t + MINUTE - 1));
    expect(nextLoadChange(house, t + 17)).toBe(t + MINUTE);
  });

  it('varies minute to minute (noise) and day to day', () => {
    const minutes = new Set<number>();
    for (let m = 0; m < 60; m++) minutes.add(powerMw(house, T0 + 20 * HOUR + m * MINUTE));
    expect(minutes.size).toBeGreaterThan(50);
    expect(powerMw(house, T0 + 20 * HOUR)).not.toBe(powerMw(house, T0 + DAY + 20 * HOUR));
  });

  it('is random-access: a minute has the same value whatever was computed before', () => {
    const ts = Array.from({ length: 500 }, (_, i) => T0 + i * 7919 * MINUTE);
    const forward = ts.map((t) => powerAt(house, t));
    const backward = [...ts]
      .reverse()
      .map((t) => powerAt(house, t))
      .reverse();
    expect(backward).toEqual(forward);
  });

  it('scales with peakWatts', () => {
    const half: LoadProfile = { kind: 'household', seed: 2024, peakWatts: PEAK / 2 };
    const t = T0 + 20 * HOUR;
    expect(Math.abs(powerMw(half, t) * 2 - powerMw(house, t))).toBeLessThanOrEqual(1);
  });
});

describe('validateLoad', () => {
  it.each([
    [{ kind: 'constant', watts: -1 }],
    [{ kind: 'constant', watts: Number.NaN }],
    [{ kind: 'constant', watts: 1_000_001 }],
    [{ kind: 'constant', watts: 5, powerFactor: Number.POSITIVE_INFINITY }],
    [{ kind: 'household', seed: 1.5, peakWatts: 100 }],
    [{ kind: 'household', seed: 1, peakWatts: -3 }],
    [{ kind: 'solar', watts: 1 }],
  ])('rejects %j with a TypeError', (load) => {
    expect(() => validateLoad(load as LoadProfile)).toThrow(TypeError);
  });

  it('accepts the limits', () => {
    expect(() => validateLoad({ kind: 'constant', watts: 1_000_000 })).not.toThrow();
    expect(() => validateLoad({ kind: 'household', seed: 0, peakWatts: 0 })).not.toThrow();
  });
});

describe('seeded hash', () => {
  it('is a pure function of (seed, index, stream)', () => {
    expect(hash32(1, 2, 3)).toBe(hash32(1, 2, 3));
    expect(new Set([hash32(1, 2, 3), hash32(2, 2, 3), hash32(1, 3, 3), hash32(1, 2, 4)]).size).toBe(4);
  });

  it('gives roughly uniform values in [0, 1)', () => {
    const n = 100_000;
    let sum = 0;
    const buckets = new Array<number>(10).fill(0);
    let outside = 0;
    for (let i = 0; i < n; i++) {
      const u = unitAt(99, i);
      if (!(u >= 0 && u < 1)) outside++;
      sum += u;
      buckets[Math.floor(u * 10)]!++;
    }
    expect(outside).toBe(0);
    expect(Math.abs(sum / n - 0.5)).toBeLessThan(0.01);
    for (const b of buckets) expect(Math.abs(b - n / 10)).toBeLessThan(n / 100);
  });
});
