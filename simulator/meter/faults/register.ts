// Issue 12 §1, the register faults: what the pure meter does at their edges (merged into the table of
// handlers.ts). Only the displayed register changes [M-25] [M-26]; energy, balance and charged do not,
// so billing is never affected.

import { energyKwhAtWh } from '../quantize.ts';
import { readingsAt } from '../readings.ts';
import { endRollover, registerMwms, resetRegister, startRollover } from '../register.ts';
import { type MeterEffect, type MeterState, MWMS_PER_KWH } from '../types.ts';
import type { Fault, FaultHandler, FaultKind, FaultParams } from './types.ts';

const MWMS_PER_WH_BIG = MWMS_PER_KWH / 1000n;

/** max_kwh in the register's unit, to the whole Wh (the register's resolution, M-16). */
export function rolloverMaxMwms(maxKwh: number): bigint {
  return BigInt(Math.round(maxKwh * 1000)) * MWMS_PER_WH_BIG;
}

/**
 * [M-26] Why a `register_rollover` cannot be set on this meter now, or null: its maximum must exceed the
 * register the meter shows (else the register would already be past it), and one rollover at a time.
 * For the route that adds the fault: a problem is a `validation_error` on `max_kwh`.
 */
export function rolloverProblem(s: MeterState, params: FaultParams['register_rollover']): string | null {
  if (s.registerMax !== null)
    return `the register already rolls over at ${energyKwhAtWh(s.registerMax)} kWh: clear that fault first`;
  const max = rolloverMaxMwms(params.max_kwh);
  if (max < MWMS_PER_WH_BIG) return 'max_kwh must be at least 0.001 (one register step)';
  const shown = registerMwms(s);
  if (max <= shown)
    return `max_kwh ${params.max_kwh} must exceed the register the meter shows now, ${energyKwhAtWh(shown)} kWh`;
  return null;
}

const info = (effects: MeterEffect[]) => effects.push({ type: 'info' }); // [MC-4.1] [MC-4.6]

export const registerFaultHandlers: Partial<Record<FaultKind, FaultHandler>> = {
  /**
   * [M-25] An instant: a final reading of the old register, then the register reads zero from here, in
   * a new epoch [MC-7.9].
   */
  register_reset: {
    start(s: MeterState, _fault: Fault, t: number, effects: MeterEffect[]) {
      // The old register's final reading at the instant (as M-17): nothing between samples is lost.
      effects.push({ type: 'telemetry', sample: readingsAt(s, t) });
      resetRegister(s);
    },
  },
  /** [M-26] The register counts modulo max_kwh from here; info says so [MC-4.6]. */
  register_rollover: {
    start(s: MeterState, fault: Fault, _t: number, effects: MeterEffect[]) {
      if (fault.kind !== 'register_rollover') return;
      startRollover(s, rolloverMaxMwms(fault.params.max_kwh));
      info(effects);
    },
    end(s: MeterState, _fault: Fault, _t: number, effects: MeterEffect[]) {
      endRollover(s);
      info(effects);
    },
  },
};
