// [M-18] [M-23] Samples that are never produced: none while the meter has no supply, none while a
// telemetry gap lasts. The schedule [M-2] runs on: the next sample after the gap is the usual one.

import { activeFault, type Fault } from './types.ts';

export function sampleWithheld(faults: readonly Fault[], t: number): boolean {
  return (
    activeFault(faults, 'power_outage', t) !== undefined ||
    activeFault(faults, 'telemetry_gap', t) !== undefined
  );
}
