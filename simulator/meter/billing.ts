// [M-5] Exact billing. Energy is in mW·ms and balance in 1/3.6e12 paise, so charging tariff (paise/kWh)
// for ΔE (mW·ms) is the integer product tariff × ΔE: no rounding, hence no drift however long a meter runs.

import { type MeterState, UNITS_PER_PAISE } from './types.ts';

export const MAX_TARIFF_PAISE = 100_000;

/** Paise per kWh of the active tariff. */
export function activeTariffPaise(s: Pick<MeterState, 'activeTariff' | 'ebTariff' | 'dgTariff'>): number {
  return s.activeTariff === 1 ? s.ebTariff : s.dgTariff;
}

/** Balance units charged per mW·ms right now: the active tariff in prepaid and postpaid, 0 otherwise. */
export function billingRate(s: Pick<MeterState, 'mode' | 'activeTariff' | 'ebTariff' | 'dgTariff'>): bigint {
  if (s.mode !== 'prepaid' && s.mode !== 'postpaid') return 0n;
  return BigInt(activeTariffPaise(s));
}

/** Integer paise rounded toward -infinity: a debt of one unit already reports -1. */
export function reportedBalance(balance: bigint): number {
  let q = balance / UNITS_PER_PAISE;
  if (balance % UNITS_PER_PAISE < 0n) q -= 1n;
  return Number(q);
}

export function paiseToUnits(paise: number): bigint {
  return BigInt(paise) * UNITS_PER_PAISE;
}

/**
 * [M-6] Milliseconds of flow at `powerMw` after which a prepaid balance (>= 0) is first below zero:
 * the least dt with rate × P × dt > balance. Null when nothing is charged.
 */
export function msUntilCutoff(balance: bigint, rate: bigint, powerMw: bigint): bigint | null {
  const perMs = rate * powerMw;
  if (perMs <= 0n) return null;
  return balance / perMs + 1n;
}
