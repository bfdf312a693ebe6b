import { describe, expect, it } from 'vitest';
import { type CreditCheck, type CreditReading, creditReading, judgeRecharge } from './in-doubt.ts';

const checkOf = (over: Partial<CreditCheck> = {}): CreditCheck => ({
  amount: 1_000,
  balance: 50_000,
  energyWh: 1_234_567,
  tariffs: [800, 1_200],
  charging: true,
  ...over,
});
const readingOf = (over: Partial<CreditReading> = {}): CreditReading => ({
  balance: 50_000,
  energyWh: 1_234_567,
  tariffs: [800, 1_200],
  charging: true,
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
    });
    expect(creditReading(sample, { credit: 42, mode: 2 })).toMatchObject({ tariffs: null, charging: false });
    expect(creditReading(sample, { credit: 42 })).toMatchObject({ charging: null });
  });
  it('no credit read: no reading (a decision never rests on a balance the meter did not give)', () => {
    expect(creditReading(sample, { mode: 0 })).toBeNull();
  });
});
