// [M-24] Fault edges inside the pure meter: integration stops at every fault's `from` and `until` and runs
// the kind's handler at that instant; a fault added or cleared by an event starts or ends at once.

import type { MeterEffect, MeterState } from '../types.ts';
import { FAULT_HANDLERS } from './handlers.ts';
import { type Fault, isActive } from './types.ts';

/** The first fault edge (a `from` or an `until`) strictly after t; +Infinity if none. */
export function nextFaultEdge(faults: readonly Fault[], t: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const f of faults) {
    if (f.from > t && f.from < next) next = f.from;
    if (f.until !== null && f.until > t && f.until < next) next = f.until;
  }
  return next;
}

/** Runs the handlers of the faults that start or end exactly at t (ends first: the supply is back
 * before a fault that begins at that instant takes hold). */
export function fireEdges(s: MeterState, t: number, effects: MeterEffect[]): void {
  for (const f of s.faults) if (f.until === t) FAULT_HANDLERS[f.kind]?.end?.(s, f, t, effects);
  for (const f of s.faults) if (f.from === t) FAULT_HANDLERS[f.kind]?.start?.(s, f, t, effects);
}

/** Drops the faults that have ended by t. */
export function dropEnded(s: MeterState, t: number): void {
  if (s.faults.some((f) => f.until !== null && f.until <= t))
    s.faults = s.faults.filter((f) => f.until === null || f.until > t);
}

/** The add_fault event at t (state integrated up to t): a fault due now starts now. */
export function addFault(s: MeterState, fault: Fault, t: number, effects: MeterEffect[]): void {
  if (s.faults.some((f) => f.id === fault.id)) throw new TypeError(`add_fault: ${fault.id} exists`);
  s.faults = [...s.faults, fault];
  s.faultSeq += 1;
  if (isActive(fault, t)) FAULT_HANDLERS[fault.kind]?.start?.(s, fault, t, effects);
  dropEnded(s, t);
}

/** The clear_faults event at t: a cleared fault that is active ends now (an outage is restored). */
export function clearFaults(
  s: MeterState,
  ids: readonly string[] | 'all',
  t: number,
  effects: MeterEffect[],
): void {
  const cleared = s.faults.filter((f) => ids === 'all' || ids.includes(f.id));
  if (cleared.length === 0) return;
  s.faults = s.faults.filter((f) => !cleared.includes(f));
  for (const f of cleared) if (isActive(f, t)) FAULT_HANDLERS[f.kind]?.end?.(s, f, t, effects);
}
