// [CL-9.6] A recharge in doubt, decided from the meter's own figures. DLMS carries no transaction id and
// a meter keeps no log of them, so when an update_amount's answer is lost (the link dropped between the
// ACTION and its response) only the credit can say whether it went in. Before the ACTION the bridge keeps
// the meter's credit and cumulative energy (a `CreditCheck`, on disk); on the next reading after it, the
// credit must be the old one less what the energy since cost, with or without the amount. Consumption is
// bounded from the energy register and the tariffs, every reading's rounding included: where the two
// possibilities overlap (or neither fits), the recharge stays in doubt for a person, never guessed.
// Pure: the bridge reads the meter and keeps the file.

import type { Sample } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { MAX_TARIFF_PAISE } from '../../../simulator/meter/index.ts';
import type { PollValues } from './meter-model.ts';

/** What the meter said at one moment, as far as a credit decision needs it. */
export interface CreditReading {
  /** The credit object's current_credit_amount, paise (CO-9.2). */
  balance: number;
  /** The cumulative kWh import register, whole Wh (CO-6.2). */
  energyWh: number;
  /** Paise per kWh the meter may have charged: its EB and DG tariffs; null where it lists none. */
  tariffs: number[] | null;
  /** Whether the meter charges for energy now (prepaid, postpaid); null where it lists no mode. */
  charging: boolean | null;
  /** The energy register's resolution, Wh (10^scaler: 1, 10, 1,000); absent in older state files: 1. */
  stepWh?: number;
  /** When it was read, ms, on the bridge's clock; absent in older state files. */
  atMs?: number;
  /** When it was read on the meter's clock, ms; null where the meter gave none. */
  meterMs?: number | null;
}

/** Kept on disk with an in-doubt recharge: its amount and the meter just before the ACTION went out. */
export interface CreditCheck extends CreditReading {
  amount: number;
}

export type Verdict =
  | { kind: 'applied'; why: string }
  | { kind: 'not_applied'; why: string }
  | { kind: 'unknown'; why: string };

/** One poll's figures, or null when the meter did not give its credit (no decision can rest on it). */
export function creditReading(
  sample: Sample,
  values: PollValues,
  energyScaler = 0,
  meterClockMs: number | null = null,
): CreditReading | null {
  if (typeof values.credit !== 'number') return null;
  const tariffs = [values.eb, values.dg].filter((t): t is number => typeof t === 'number');
  const mode = values.mode;
  return {
    balance: values.credit,
    energyWh: Math.round(sample.energy * 1000),
    tariffs: tariffs.length > 0 ? tariffs : null,
    // CO-9.4's mode enum: 0 prepaid and 1 postpaid are charged (M-5); 2 measurement, 3 relay_off are not.
    charging: typeof mode === 'number' ? mode === 0 || mode === 1 : null,
    // [CL-9.6.1] A register in whole kWh (scaler 3) hides up to 999 Wh: the decision must know.
    stepWh: Math.max(1, 10 ** energyScaler),
    atMs: sample.ts,
    meterMs: meterClockMs,
  };
}

/**
 * [CL-9.6.1] Past this much time between the two readings (15 min, on the meter's clock where both have
 * it) the credit is no witness: fixed charges, a tariff change or a top-up at the meter may have moved it.
 */
export const MAX_CHECK_GAP_MS = 15 * 60_000;

/**
 * [CL-9.6.1] Was `check.amount` credited between `check` and `after`? Both readings round: the energy to
 * the register's step (so the true consumption lies within ±step of the difference), the balance down to
 * the paise (±1 paise). The charged cost lies in [low, high]: from the lowest tariff on one step less to
 * the highest on one step more (any tariff up to the contract's limit where the meter lists none), and
 * nothing where the meter was not charging at either end. The balance without the credit then lies in
 * [before − high − 1, before − low + 1], with it `amount` higher. `applied` where only "with" fits;
 * `not_applied` only where the balance also lies at least half the amount below the "with" window (the
 * meter may take more than energy × tariff, and a wrong "not applied" credits twice); else unknown, as it
 * is when the readings are too far apart in time to compare.
 */
export function judgeRecharge(check: CreditCheck, after: CreditReading): Verdict {
  const used = after.energyWh - check.energyWh;
  if (used < 0) return { kind: 'unknown', why: `the energy register went back ${-used} Wh` };
  const gap = gapMs(check, after);
  if (gap === null || gap < 0 || gap > MAX_CHECK_GAP_MS) {
    const t = gap === null ? 'no comparable time' : `${Math.round(gap / 1000)} s`;
    return {
      kind: 'unknown',
      why: `${t} between the readings (limit ${MAX_CHECK_GAP_MS / 60_000} min) over ${used} Wh`,
    };
  }
  const step = Math.max(1, check.stepWh ?? 1, after.stepWh ?? 1);
  const tariffs = [...(check.tariffs ?? []), ...(after.tariffs ?? [])];
  const known = check.tariffs !== null && after.tariffs !== null;
  const top = known ? Math.max(0, ...tariffs) : MAX_TARIFF_PAISE;
  const bottom = known ? Math.max(0, Math.min(...tariffs)) : 0;
  const idle = check.charging === false && after.charging === false;
  const sureCharging = check.charging === true && after.charging === true;
  const high = idle ? 0 : ((used + step) * top) / 1000;
  const low = sureCharging ? (Math.max(0, used - step) * bottom) / 1000 : 0;
  const without = { from: check.balance - high - 1, to: check.balance - low + 1 };
  const withIt = { from: without.from + check.amount, to: without.to + check.amount };
  const fits = (r: { from: number; to: number }) => after.balance >= r.from && after.balance <= r.to;
  const yes = fits(withIt);
  const no = fits(without);
  const clear = after.balance <= withIt.from - check.amount / 2; // a real margin below "with"
  const seen = `credit ${check.balance} → ${after.balance} paise over ${used} Wh (step ${step} Wh)`;
  if (yes && !no) return { kind: 'applied', why: `${seen}: the ${check.amount} paise went in` };
  if (no && !yes && clear)
    return { kind: 'not_applied', why: `${seen}: the ${check.amount} paise did not go in` };
  const cost = `${Math.floor(low)}–${Math.ceil(high)} paise of energy`;
  const which = yes
    ? 'both with and without'
    : no
      ? 'without, but too near with,'
      : 'neither with nor without';
  return { kind: 'unknown', why: `${seen} (${cost}): ${which} the ${check.amount} paise fit` };
}

/** The time between the readings: the meter's clock where both have it, else the bridge's; or null. */
function gapMs(check: CreditReading, after: CreditReading): number | null {
  if (typeof check.meterMs === 'number' && typeof after.meterMs === 'number')
    return after.meterMs - check.meterMs;
  if (typeof check.atMs !== 'number' || typeof after.atMs !== 'number') return null;
  return after.atMs - check.atMs;
}
