import { describe, expect, it } from 'vitest';
import { type CreditCheck, type CreditReading, creditReading, judgeRecharge } from './in-doubt.ts';

const checkOf = (over: Partial<CreditCheck> = {}): CreditCheck => ({
  amount: 1_000,
  balance: 50_000,
  energyWh: 1_234_567,
  tariffs: [800, 1_200],
  charging: true,
  stepWh: 1,
  atMs: 1_000_000,
  meterMs: null,
  ...over,
});
const readingOf = (over: Partial<CreditReading> = {}): CreditReading => ({
  balance: 50_000,
  energyWh: 1_234_567,
  tariffs: [800, 1_200],
  charging: true,
  stepWh: 1,
  atMs: 1_060_000,
  meterMs: null,
  ...over,
});

describe('judgeRecharge: a recharge in doubt decided from the credit [CL-9.6]', () => {
  it.each([
    // [name, check, after, verdict]
    ['no energy used, the amount there', {}, { balance: 51_000 }, 'applied'],
    ['no energy used, the balance as it was', {}, {}, 'not_applied'],
    ['balance rounded down a paise either side', {}, { balance: 49_999 }, 'not_applied'],
    ['the amount in, a paise rounded', {}, { balance: 51_001 }, 'applied'],
    // 500 Wh at 800..1200 paise/kWh cost 319..602 paise (±1 Wh): 450 is inside
    ['energy used, the amount in less its cost', {}, { energyWh: 1_235_067, balance: 50_550 }, 'applied'],
    ['energy used, only its cost gone', {}, { energyWh: 1_235_067, balance: 49_550 }, 'not_applied'],
    // the cost's spread (319..602) is wider than a 100 paise amount: both fit
    [
      'a small amount against a wide cost',
      { amount: 100 },
      { energyWh: 1_235_067, balance: 49_600 },
      'unknown',
    ],
    // no tariffs listed: any cost up to 100,000 paise/kWh, so 1 kWh could have cost 1,001 rupees
    [
      'no tariffs, a kWh used',
      { tariffs: null },
      { tariffs: null, energyWh: 1_235_567, balance: 49_500 },
      'unknown',
    ],
    // energy only lowers the credit: a credit that rose took the amount, whatever the tariff
    [
      'no tariffs, a kWh used, the credit rose',
      { tariffs: null },
      { tariffs: null, energyWh: 1_235_567, balance: 50_500 },
      'applied',
    ],
    ['no tariffs, nothing used', { tariffs: null }, { tariffs: null, balance: 51_000 }, 'applied'],
    [
      'no tariffs, nothing used, no credit',
      { tariffs: null },
      { tariffs: null, balance: 50_000 },
      'not_applied',
    ],
    // a meter that does not charge (measurement, relay_off) at both ends: the energy costs nothing
    [
      'not charging, energy used, the amount in',
      { charging: false },
      { charging: false, energyWh: 1_300_000, balance: 51_000 },
      'applied',
    ],
    [
      'not charging, energy used, no credit',
      { charging: false },
      { charging: false, energyWh: 1_300_000 },
      'not_applied',
    ],
    ['the energy register went back', {}, { energyWh: 1_000, balance: 51_000 }, 'unknown'],
    ['neither fits: the credit rose by three amounts', {}, { balance: 53_000 }, 'unknown'],
    ['neither fits: the credit fell with no energy used', {}, { balance: 40_000 }, 'unknown'],
    // [CL-9.6.1] a register in whole kWh: "no energy used" may hide 999 Wh, 1,199 paise at 1,200/kWh,
    // so a credit as it was may be the 1,000 paise in less a kWh's cost: not "not applied" (twice paid)
    ['a kWh register, nothing seen used, the balance as it was', { stepWh: 1_000 }, {}, 'unknown'],
    [
      'a kWh register, the amount in (energy only lowers it)',
      { stepWh: 1_000 },
      { balance: 51_000 },
      'applied',
    ],
    ['a kWh register, far below the amount', { stepWh: 1_000, amount: 10_000 }, {}, 'not_applied'],
    ['a 10 Wh register step from the later reading', {}, { stepWh: 10, balance: 49_990 }, 'not_applied'],
    // [CL-9.6.1] only "without" fits, but within half the amount of "with": the meter may have taken
    // more than energy × tariff (a fixed charge), so it stays in doubt
    [
      'a small amount, the balance just under its window',
      { amount: 100 },
      { energyWh: 1_235_067, balance: 49_450 },
      'unknown',
    ],
    // [CL-9.6.1] readings more than 15 min apart: the credit is no witness
    ['16 min between the readings', {}, { atMs: 1_000_000 + 16 * 60_000 }, 'unknown'],
    ['14 min between the readings', {}, { atMs: 1_000_000 + 14 * 60_000 }, 'not_applied'],
    [
      "the meter's clock decides where both have it",
      { meterMs: 0 },
      { meterMs: 16 * 60_000, balance: 51_000 },
      'unknown',
    ],
    ['the bridge clock went back', {}, { atMs: 0, balance: 51_000 }, 'unknown'],
    ['a check from an older file, without times', { atMs: undefined }, { balance: 51_000 }, 'unknown'],
  ] as const)('%s', (_name, check, later, verdict) => {
    const v = judgeRecharge(checkOf(check), readingOf(later));
    expect(v.kind).toBe(verdict);
    expect(v.why).toMatch(/paise|Wh/);
  });

  it('a tariff changed between the readings counts both: the dearer bounds the cost', () => {
    // 1 kWh used, 800 paise/kWh before and 5,000 after: it cost 799 to 5,005 paise
    const v = judgeRecharge(
      checkOf({ amount: 20_000, tariffs: [800, 800] }),
      readingOf({ tariffs: [5_000, 800], energyWh: 1_235_567, balance: 50_000 - 4_000 + 20_000 }),
    );
    expect(v.kind).toBe('applied');
  });
});

describe('creditReading: one poll into what a decision needs [CL-9.6]', () => {
  const sample = { ts: 0, energy: 1234.567, voltage: 230, active_power: 100, balance: 0 };
  it('the credit, the energy in Wh, the tariffs and whether the mode charges', () => {
    expect(creditReading(sample, { credit: 42, eb: 800, dg: 1_500, mode: 0 })).toEqual({
      balance: 42,
      energyWh: 1_234_567,
      tariffs: [800, 1_500],
      charging: true,
      stepWh: 1,
      atMs: 0,
      meterMs: null,
    });
    // [CL-9.6.1] the register's scaler is its step; the meter's clock kept beside the bridge's
    expect(creditReading(sample, { credit: 42 }, 3, 77)).toMatchObject({ stepWh: 1_000, meterMs: 77 });
    expect(creditReading(sample, { credit: 42 }, -1)).toMatchObject({ stepWh: 1 });
    expect(creditReading(sample, { credit: 42, mode: 2 })).toMatchObject({ tariffs: null, charging: false });
    expect(creditReading(sample, { credit: 42 })).toMatchObject({ charging: null });
  });
  it('no credit read: no reading (a decision never rests on a balance the meter did not give)', () => {
    expect(creditReading(sample, { mode: 0 })).toBeNull();
  });
});
