// Power faults [M-18] [M-19]: the supply is cut (power_outage) or its voltage leaves the normal band
// (voltage_sag, voltage_swell). Pure: what the meter sees at an instant, and what it does at the edges.

import { reportedStateEffect } from './report.ts';
import { activeFault, type Fault, type FaultHandler, type FaultKind } from './types.ts';

/**
 * [M-18] Whether the meter has supply at virtual ms t. The link (virtual-meter.ts) calls this to drop
 * its connection abruptly at an outage's start (the will fires) and reconnect at its end.
 */
export function powered(state: { faults: readonly Fault[] }, t: number): boolean {
  return state.faults.length === 0 || activeFault(state.faults, 'power_outage', t) === undefined;
}

/** [M-19] The supply voltage a sag or swell imposes at t (V, before the meter's noise), if any. */
export function faultVolts(faults: readonly Fault[], t: number): number | undefined {
  if (faults.length === 0) return undefined;
  for (const f of faults)
    if (
      (f.kind === 'voltage_sag' || f.kind === 'voltage_swell') &&
      t >= f.from &&
      (f.until === null || t < f.until)
    )
      return f.params.volts;
  return undefined;
}

export const powerHandlers: Partial<Record<FaultKind, FaultHandler>> = {
  power_outage: {
    // Nothing at the start: an unpowered meter cannot say anything.
    end(s, fault, t, effects) {
      // [M-18] Restoration: a `full` meter keeps its relay command in non-volatile memory; a `basic` one
      // powers up with its relay commanded ON (the prepaid rule [M-3] still opens it on a debt). Then it
      // reports its state, as a meter does when it boots.
      if (s.model === 'basic') s.relayCommanded = true;
      reportedStateEffect(s, fault, t, effects);
    },
  },
};
