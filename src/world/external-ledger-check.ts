// [LEDGER-6] An external meter against its ledger. Such a meter bills itself and reports no `charged`
// register, so the whole-balance equation of LEDGER-3 cannot be made; what can be checked is each credit:
// the balance in the meter's ack must be the balance it reported just before, plus the amount, less at
// most what it may have billed in between (the receipt's allowance). A meter that shows more, or less
// than that, disagrees; pending credits are listed, not judged.

import type { CreditReceipt, LedgerEntry } from '../store/types.ts';

export interface CreditDifference {
  transactionId: string;
  amount: number;
  balanceBefore: number;
  balanceAfter: number;
  /** after − (before + amount), paise: positive is money the ledger never gave, negative money lost. */
  differencePaise: number;
  allowance: number;
}

export interface ExternalLedgerCheck {
  deviceId: string;
  agrees: boolean;
  /** Sum of the credits the meter acknowledged, paise. */
  appliedPaise: number;
  pending: string[];
  refused: string[];
  /** Applied credits with no balance before to compare (the meter already held them, MC-8.8). */
  unverified: number;
  disagreements: CreditDifference[];
}

export function externalLedgerCheck(
  deviceId: string,
  recharges: readonly LedgerEntry[],
  receipts: readonly CreditReceipt[],
): ExternalLedgerCheck {
  const bySeq = new Map(receipts.map((r) => [r.ledgerSeq, r]));
  const check: ExternalLedgerCheck = {
    deviceId,
    agrees: true,
    appliedPaise: 0,
    pending: [],
    refused: [],
    unverified: 0,
    disagreements: [],
  };
  for (const e of recharges) {
    const r = bySeq.get(e.seq);
    const tx = e.transactionId ?? `seq ${e.seq}`;
    if (!r) check.pending.push(tx);
    else if (r.outcome === 'refused') check.refused.push(tx);
    else {
      check.appliedPaise += e.amount;
      if (r.balanceBefore === null || r.balanceAfter === null) {
        check.unverified++;
        continue;
      }
      const differencePaise = r.balanceAfter - (r.balanceBefore + e.amount);
      if (differencePaise > 0 || differencePaise < -r.allowance)
        check.disagreements.push({
          transactionId: tx,
          amount: e.amount,
          balanceBefore: r.balanceBefore,
          balanceAfter: r.balanceAfter,
          differencePaise,
          allowance: r.allowance,
        });
    }
  }
  check.agrees = check.disagreements.length === 0;
  return check;
}

/** The /sim/v1 view of an external meter's check. */
export function externalCheckView(c: ExternalLedgerCheck) {
  return {
    device_id: c.deviceId,
    external: true,
    agrees: c.agrees,
    applied_paise: c.appliedPaise,
    pending: c.pending,
    refused: c.refused,
    unverified: c.unverified,
    disagreements: c.disagreements.map((d) => ({
      transaction_id: d.transactionId,
      amount: d.amount,
      balance_before: d.balanceBefore,
      balance_after: d.balanceAfter,
      difference_paise: d.differencePaise,
      allowance_paise: d.allowance,
    })),
  };
}
