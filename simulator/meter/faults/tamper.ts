// [M-22] Tamper conditions (cover opened, magnet applied) as the meter reports them in its state.

import type { Fault, FaultParams } from './types.ts';

export type TamperType = FaultParams['tamper']['type'];

/** [M-22] The tamper conditions active at t, sorted, without repeats (empty: none). */
export function tamperAt(faults: readonly Fault[], t: number): TamperType[] {
  const out: TamperType[] = [];
  for (const f of faults)
    if (
      f.kind === 'tamper' &&
      t >= f.from &&
      (f.until === null || t < f.until) &&
      !out.includes(f.params.type)
    )
      out.push(f.params.type);
  return out.sort();
}
