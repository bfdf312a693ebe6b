// [M-4] Loads. Power is piecewise constant and quantized to integer mW, so every energy increment
// P × dt is an exact integer. A constant load never changes; a household load changes each minute.

import { unitAt } from './rng.ts';
import type { LoadProfile } from './types.ts';

export const MAX_LOAD_WATTS = 1_000_000;
export const MS_PER_MINUTE = 60_000;
/** Asia/Kolkata is UTC+05:30 all year (no DST). */
const IST_OFFSET_MINUTES = 330;
const MINUTES_PER_DAY = 1440;
const DEFAULT_POWER_FACTOR = 0.95;

/** Household demand as a fraction of peak at each local (IST) hour, linearly interpolated in between. */
// biome-ignore format: one row per half day reads as a daily curve
export const HOUSEHOLD_SHAPE: readonly number[] = [
  0.14, 0.12, 0.11, 0.1, 0.11, 0.18, 0.4, 0.62, 0.66, 0.5, 0.38, 0.34, // 00:00 .. 11:00
  0.36, 0.38, 0.35, 0.33, 0.36, 0.45, 0.65, 0.85, 0.97, 0.95, 0.7, 0.35, // 12:00 .. 23:00
];

const SHAPE_BY_MINUTE = (() => {
  const out = new Float64Array(MINUTES_PER_DAY);
  for (let m = 0; m < MINUTES_PER_DAY; m++) {
    const h = Math.floor(m / 60);
    const a = HOUSEHOLD_SHAPE[h]!;
    const b = HOUSEHOLD_SHAPE[(h + 1) % 24]!;
    out[m] = a + ((b - a) * (m % 60)) / 60;
  }
  return out;
})();

// Independent random streams drawn from a profile's seed.
const STREAM_NOISE = 1;
const STREAM_DAY = 2;
const STREAM_PF = 3;

/** Minutes since the epoch in IST wall-clock terms (minute index shifted by +05:30). */
function istMinute(ts: number): number {
  return Math.floor(ts / MS_PER_MINUTE) + IST_OFFSET_MINUTES;
}

/** Fraction of the daily peak typical at `ts` (the smooth curve, no noise). */
export function dailyShapeAt(ts: number): number {
  const m = istMinute(ts) % MINUTES_PER_DAY;
  return SHAPE_BY_MINUTE[m < 0 ? m + MINUTES_PER_DAY : m]!;
}

/** Instantaneous demand in integer mW (the value energy is integrated with). */
export function powerMw(load: LoadProfile, ts: number): number {
  if (load.kind === 'constant') return Math.round(load.watts * 1000);
  const minute = Math.floor(ts / MS_PER_MINUTE);
  const local = minute + IST_OFFSET_MINUTES;
  const day = Math.floor(local / MINUTES_PER_DAY);
  const shape = SHAPE_BY_MINUTE[local - day * MINUTES_PER_DAY]!;
  const dayFactor = 0.92 + 0.16 * unitAt(load.seed, day, STREAM_DAY);
  const noise = 0.85 + 0.3 * unitAt(load.seed, minute, STREAM_NOISE);
  return Math.round(Math.min(1, shape * dayFactor * noise) * load.peakWatts * 1000);
}

export interface PowerReading {
  /** Exactly powerMw / 1000. */
  watts: number;
  /** Rounded to 0.001. */
  powerFactor: number;
}

export function powerAt(load: LoadProfile, ts: number): PowerReading {
  const watts = powerMw(load, ts) / 1000;
  if (load.kind === 'constant') {
    const pf = Math.min(1, Math.max(0.1, load.powerFactor ?? DEFAULT_POWER_FACTOR));
    return { watts, powerFactor: Math.round(pf * 1000) / 1000 };
  }
  const u = unitAt(load.seed, Math.floor(ts / MS_PER_MINUTE), STREAM_PF);
  return { watts, powerFactor: Math.round((0.85 + 0.14 * u) * 1000) / 1000 };
}

/** The first instant after `ts` at which the load may change. */
export function nextLoadChange(load: LoadProfile, ts: number): number {
  if (load.kind === 'constant') return Number.POSITIVE_INFINITY;
  return (Math.floor(ts / MS_PER_MINUTE) + 1) * MS_PER_MINUTE;
}

/** Throws a TypeError naming the bad field; a load reaches the meter only from the simulator's operator. */
export function validateLoad(load: LoadProfile): void {
  const watts = (x: unknown, name: string) => {
    if (typeof x !== 'number' || !Number.isFinite(x) || x < 0 || x > MAX_LOAD_WATTS) {
      throw new TypeError(`load.${name} must be a number in 0..${MAX_LOAD_WATTS}, got ${String(x)}`);
    }
  };
  if (load.kind === 'constant') {
    watts(load.watts, 'watts');
    const pf = load.powerFactor;
    if (pf !== undefined && (typeof pf !== 'number' || !Number.isFinite(pf))) {
      throw new TypeError(`load.powerFactor must be a finite number, got ${String(pf)}`);
    }
    return;
  }
  if (load.kind === 'household') {
    watts(load.peakWatts, 'peakWatts');
    if (!Number.isInteger(load.seed)) throw new TypeError(`load.seed must be an integer, got ${load.seed}`);
    return;
  }
  throw new TypeError(`unknown load kind ${String((load as { kind: unknown }).kind)}`);
}
