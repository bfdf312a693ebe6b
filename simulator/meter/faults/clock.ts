// Clock faults [M-20]: the meter's own clock is off, so the timestamps it puts on samples and state
// reports are off. Its schedule (when samples fall due, [M-2]) still runs on true time: the clock is
// wrong, not the crystal that paces the sampling.

import type { Fault } from './types.ts';

/**
 * [M-20] The timestamp the meter writes for true virtual ms t: + a skew's `seconds`, + a drift's
 * `ppm` × the time elapsed since the drift began (whole ms, rounded).
 */
export function meterTs(faults: readonly Fault[], t: number): number {
  let ts = t;
  for (const f of faults) {
    if (t < f.from || (f.until !== null && t >= f.until)) continue;
    if (f.kind === 'clock_skew') ts += Math.round(f.params.seconds * 1000);
    else if (f.kind === 'clock_drift') ts += Math.round(((t - f.from) * f.params.ppm) / 1e6);
  }
  return ts;
}
