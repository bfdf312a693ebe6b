// A fleet built from one load is not N clones (issue 20 item 16: 10,000 worker meters all read 375.2 W).
// Meter n gets a household of its own, drawn from (the load's seed, n) with the meter's seeded random
// streams (rng.ts), so the same seed makes the same fleet: its own minute-by-minute streams, and a peak
// within ±25 % of the one asked for (the demo world's households span 1,800-3,000 W, src/world/demo.ts).

import { MAX_LOAD_WATTS } from './profiles.ts';
import { hash32, unitAt } from './rng.ts';
import type { LoadProfile } from './types.ts';

// Streams of (seed, n), apart from the household's own (profiles.ts uses 1-3).
const STREAM_LOAD_SEED = 31;
const STREAM_PEAK = 32;
/** The spread of peaks around the one asked for: ×0.75 .. ×1.25. */
const PEAK_SPREAD = 0.5;

/**
 * Meter `n`'s load in a fleet made from `load`. A household is varied; a constant load is what was
 * asked for, exactly, so it stays (a test bench's 500 W is 500 W on every meter).
 */
export function fleetMeterLoad(load: LoadProfile, n: number): LoadProfile {
  if (load.kind === 'constant') return load;
  const factor = 1 - PEAK_SPREAD / 2 + PEAK_SPREAD * unitAt(load.seed, n, STREAM_PEAK);
  return {
    kind: 'household',
    seed: hash32(load.seed, n, STREAM_LOAD_SEED),
    // Whole watts: a peak reads as a person would set it.
    peakWatts: Math.min(MAX_LOAD_WATTS, Math.round(load.peakWatts * factor)),
  };
}
