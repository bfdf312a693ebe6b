// Hardware faults [M-21] [M-22]: relay contacts that do not follow the relay's logic, and tampering.

import { relayClosed } from '../relay.ts';
import type { MeterState } from '../types.ts';
import { reportedStateEffect } from './report.ts';
import { activeFault, type FaultHandler, type FaultKind } from './types.ts';

/**
 * How current flows in [t, …) given the faults: `normal` (the relay's logic [M-3]), `none` (no supply
 * [M-18], or contacts stuck open [M-21]) or `forced` (welded contacts that the logic has opened [M-21]:
 * the load flows and is billed, and no cut-off can stop it).
 */
export type Flow = 'normal' | 'none' | 'forced';

export function flowAt(s: MeterState, t: number): Flow {
  const f = s.faults;
  if (activeFault(f, 'power_outage', t) || activeFault(f, 'relay_stuck_open', t)) return 'none';
  if (activeFault(f, 'welded_relay', t) && !relayClosed(s, t)) return 'forced';
  return 'normal';
}

/** Whether current flows at t (for what the meter measures). */
export function currentFlows(s: MeterState, t: number): boolean {
  const flow = flowAt(s, t);
  return flow === 'forced' || (flow === 'normal' && relayClosed(s, t));
}

export const hardwareHandlers: Partial<Record<FaultKind, FaultHandler>> = {
  // [M-22] A tamper switch reports at once when it trips and when it is restored.
  tamper: { start: reportedStateEffect, end: reportedStateEffect },
};
