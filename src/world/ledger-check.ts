// [issue 8 item 2] Reconciliation: the ledger is the truth about money a virtual meter was given, and the
// meter's charged register [M-15] is the truth about what it billed, so at every instant
//   meter balance (units) = ledger total (paise) × 3.6e12 − charged.
// A disagreement means a credit reached the meter outside the ledger, or a ledger credit never reached
// it. It is reported, never "fixed": which side is right is for a person to decide.

import type { MeterState } from '../../simulator/meter/types.ts';
import { UNITS_PER_PAISE } from '../../simulator/meter/types.ts';

export interface LedgerCheck {
  deviceId: string;
  /** Sum of the device's ledger entries (opening, recharges, adjustments), integer paise. */
  ledgerPaise: number;
  /** What the meter billed, balance units. */
  chargedUnits: bigint;
  /** ledgerPaise × 3.6e12 − charged. */
  expectedUnits: bigint;
  meterUnits: bigint;
  /** meter − expected: positive means the meter holds money the ledger never gave it. */
  differenceUnits: bigint;
  agrees: boolean;
}

export function ledgerCheck(state: MeterState, ledgerPaise: number): LedgerCheck {
  const expectedUnits = BigInt(ledgerPaise) * UNITS_PER_PAISE - state.charged;
  const differenceUnits = state.balance - expectedUnits;
  return {
    deviceId: state.deviceId,
    ledgerPaise,
    chargedUnits: state.charged,
    expectedUnits,
    meterUnits: state.balance,
    differenceUnits,
    agrees: differenceUnits === 0n,
  };
}

/** Paise with up to 4 decimals, for log lines (exact units are in the /sim/v1 view). */
export function paiseText(units: bigint): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  const whole = abs / UNITS_PER_PAISE;
  const frac = ((abs % UNITS_PER_PAISE) * 10_000n) / UNITS_PER_PAISE;
  return `${sign}${whole}${frac === 0n ? '' : `.${frac.toString().padStart(4, '0').replace(/0+$/, '')}`}`;
}

export function disagreementLine(c: LedgerCheck): string {
  return (
    `ledger check: ${c.deviceId} disagrees with its ledger: meter balance ${paiseText(c.meterUnits)} paise, ` +
    `ledger ${c.ledgerPaise} paise − billed ${paiseText(c.chargedUnits)} = ${paiseText(c.expectedUnits)} paise, ` +
    `difference ${c.differenceUnits > 0n ? '+' : ''}${paiseText(c.differenceUnits)} paise`
  );
}

/** Logs each disagreement and a summary line; returns how many disagree. */
export function reportChecks(
  checks: readonly LedgerCheck[],
  log: (level: 'info' | 'warn', msg: string) => void,
): number {
  const bad = checks.filter((c) => !c.agrees);
  for (const c of bad) log('warn', disagreementLine(c));
  if (checks.length > 0) {
    log(
      bad.length ? 'warn' : 'info',
      `ledger check: ${checks.length - bad.length} of ${checks.length} virtual meters agree with their ledger`,
    );
  }
  return bad.length;
}

export const CHARGED_BASELINE = 'snapshot predates the charged register [M-15]; its ledger is taken as right';

/** The /sim/v1 view of a check: exact units as strings, paise as numbers for reading. */
export function ledgerCheckView(c: LedgerCheck) {
  const p = (u: bigint) => Number(u) / Number(UNITS_PER_PAISE);
  return {
    device_id: c.deviceId,
    agrees: c.agrees,
    ledger_paise: c.ledgerPaise,
    charged_paise: p(c.chargedUnits),
    expected_balance_paise: p(c.expectedUnits),
    meter_balance_paise: p(c.meterUnits),
    difference_paise: p(c.differenceUnits),
    units: {
      charged: c.chargedUnits.toString(),
      expected_balance: c.expectedUnits.toString(),
      meter_balance: c.meterUnits.toString(),
      difference: c.differenceUnits.toString(),
    },
  };
}
