// Deterministic randomness for faults: every decision is a pure function of (the fault's seed, what is
// decided about), never of wall time or of how many decisions came before, so the same seed gives the
// same drops, delays and duplicates however the run is scheduled.

import { hashString, unitAt } from '../rng.ts';
import type { Fault } from './types.ts';

/** A uniform [0, 1) for the fault and a key (a command id, a sample ts, ...). */
export function faultUnit(fault: Pick<Fault, 'seed'>, key: string | number, stream = 0): number {
  const index = typeof key === 'number' ? key % 4_294_967_296 : hashString(key);
  return unitAt(fault.seed, index >>> 0, stream);
}

/** True with probability p for this fault and key. */
export function faultChance(
  fault: Pick<Fault, 'seed'>,
  key: string | number,
  p: number,
  stream = 0,
): boolean {
  return p >= 1 || faultUnit(fault, key, stream) < p;
}
