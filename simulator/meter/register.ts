// [M-25] [M-26] The energy register the meter displays and reports, as distinct from the energy it
// integrates and bills: a reset or a new meter sets the display back to zero (and raises the epoch,
// MC-7.9), a rollover makes it count modulo a maximum (MC-4.6). `energy`, `balance` and `charged` never
// see any of it, so money is never affected.

import { type MeterState, MWMS_PER_KWH } from './types.ts';

/** The register shown, mW·ms. The common case (never reset, no rollover) is `energy` itself. */
export function registerMwms(s: MeterState): bigint {
  if (s.registerBase === 0n && s.registerMax === null) return s.energy;
  const shown = s.energy - s.registerBase;
  return s.registerMax === null ? shown : shown % s.registerMax;
}

/** [M-25] A serial for a meter that never had one (snapshots before serials): derived from its device id. */
export function defaultSerial(deviceId: string): string {
  return `SN-${deviceId}`.slice(0, 64);
}

const WH = MWMS_PER_KWH / 1000n;

/**
 * [M-25] The register reads zero from now on, in a new epoch. Mutates `s` (a draft). The old register's
 * last reading was rounded to the Wh [M-16]; the fraction it left out (under half a Wh, either sign) is
 * carried into the new register, so old last + new reading = what flowed, to the Wh, across any number
 * of resets.
 */
export function resetRegister(s: MeterState): void {
  const shown = registerMwms(s);
  const displayed = ((shown + WH / 2n) / WH) * WH;
  s.registerBase = s.energy - (shown - displayed);
  s.registerEpoch += 1;
}

/** [M-26] From now on the register counts modulo `maxMwms` (it shows less than that now: rolloverProblem). */
export function startRollover(s: MeterState, maxMwms: bigint): void {
  s.registerMax = maxMwms;
}

/**
 * [M-26] The register stops rolling over, keeping the value it shows (no jump a receiver would take for
 * energy appearing from nowhere): the base moves up by the whole rollovers so far.
 */
export function endRollover(s: MeterState): void {
  if (s.registerMax === null) return;
  const shown = s.energy - s.registerBase;
  s.registerBase += shown - (shown % s.registerMax);
  s.registerMax = null;
}

/**
 * [M-27] A new physical meter: a new serial, its register from zero in a new epoch (the service joins the
 * two registers, MC-7.9), no rollover, no faults (faultSeq goes on: fault ids are never reused). Energy,
 * balance and charged carry over, so billing and the ledger check [M-15] go on unbroken.
 */
export function replaceMeter(s: MeterState, serial: string): void {
  s.serial = serial;
  resetRegister(s);
  s.registerMax = null;
  s.faults = [];
}
