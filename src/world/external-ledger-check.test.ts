// [LEDGER-6] An external meter is checked credit by credit: the balance in its ack against the balance
// it reported before plus the amount, less at most what it may have billed in between.
import { describe, expect, it } from 'vitest';
import type { Twin } from '../devices/types.ts';
import type { CreditReceipt, LedgerEntry } from '../store/types.ts';
import { allowance } from './external-credits.ts';
import { externalLedgerCheck } from './external-ledger-check.ts';

const entry = (seq: number, amount: number): LedgerEntry => ({
  seq,
  devicePk: 1,
  kind: 'recharge',
  amount,
  transactionId: `tx-${seq}`,
  createdAt: 0,
});
const applied = (seq: number, before: number | null, after: number, allow = 1): CreditReceipt => ({
  ledgerSeq: seq,
  devicePk: 1,
  outcome: 'applied',
  balanceBefore: before,
  balanceAfter: after,
  allowance: allow,
  reason: null,
  receivedAt: 0,
});

describe('[LEDGER-6] externalLedgerCheck', () => {
  it.each([
    ['exactly before + amount', 1000, 1500, 1, true, 0],
    ['billed one paisa of rounding', 1000, 1499, 1, true, -1],
    ['billed within the allowance', 1000, 1480, 25, true, -20],
    ['billed more than the allowance', 1000, 1470, 25, false, -30],
    ['credited more than sent', 1000, 1800, 1, false, 300],
    ['acked applied but not credited', 1000, 1000, 1, false, -500],
  ])('%s', (_what, before, after, allow, agrees, difference) => {
    const check = externalLedgerCheck('M', [entry(1, 500)], [applied(1, before, after, allow)]);
    expect(check.agrees).toBe(agrees);
    expect(check.appliedPaise).toBe(500);
    if (!agrees)
      expect(check.disagreements).toEqual([
        expect.objectContaining({ transactionId: 'tx-1', differencePaise: difference }),
      ]);
  });

  it('pending and refused credits are listed, not summed; an ack of a credit already held is unverified', () => {
    const refused: CreditReceipt = {
      ...applied(2, null, 0),
      outcome: 'refused',
      balanceAfter: null,
      reason: 'x',
    };
    const check = externalLedgerCheck(
      'M',
      [entry(1, 500), entry(2, 70), entry(3, 90), entry(4, 10)],
      [applied(1, null, 1500), refused, applied(4, 1500, 1510)],
    );
    expect(check).toEqual({
      deviceId: 'M',
      agrees: true,
      appliedPaise: 510,
      pending: ['tx-3'],
      refused: ['tx-2'],
      unverified: 1,
      disagreements: [],
    });
  });
});

describe('[LEDGER-6] allowance', () => {
  const twin = (watts: number): Twin =>
    ({
      state: { eb_tariff: 800, dg_tariff: 2000 },
      latest: { active_power: watts },
    }) as unknown as Twin;

  it('one paisa of rounding with no load; twice the newest power at the dearer tariff otherwise', () => {
    expect(allowance(twin(0), 0, 3_600_000)).toBe(1);
    // 1 kW for an hour at 2000 paise/kWh: 2000 paise, doubled, plus 1.
    expect(allowance(twin(1000), 0, 3_600_000)).toBe(4001);
    // A report stamped after the ack (a meter clock ahead) allows no more than rounding.
    expect(allowance(twin(1000), 10_000, 0)).toBe(1);
    expect(allowance(undefined, 0, 3_600_000)).toBe(1);
  });
});
