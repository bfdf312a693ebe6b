// [M-3] The effective relay is derived, never stored: only what was commanded is state.

import { prepaidClosedWithPolicy } from './policy.ts';
import type { MeterState, Mode } from './types.ts';

/** Whether the relay is closed (ON) for a mode, the last relay command and the balance (no policy). */
export function relayClosedFor(mode: Mode, commanded: boolean, balance: bigint): boolean {
  switch (mode) {
    case 'relay_off':
      return false; // spec §3: forcibly disconnected, overriding other states
    case 'prepaid':
      return commanded && balance >= 0n; // spec §3: disconnects when balance is below zero
    case 'postpaid':
      return commanded; // spec §3: stays connected; balance may go negative
    case 'measurement':
      return commanded;
  }
}

/** The relay at meter time `t`: a prepaid policy ([M-28], [M-29]) may keep it closed below zero. */
export function relayClosed(
  s: Pick<MeterState, 'mode' | 'relayCommanded' | 'balance' | 'prepaidPolicy'>,
  t: number,
): boolean {
  if (s.prepaidPolicy === null || s.mode !== 'prepaid')
    return relayClosedFor(s.mode, s.relayCommanded, s.balance);
  return prepaidClosedWithPolicy(s.prepaidPolicy, s.relayCommanded, s.balance, t);
}
