// [M-5] [M-6] [M-7] [M-8] [M-15] Exact billing, the prepaid cut-off, and recharges around it.

import { describe, expect, it } from 'vitest';
import { fastForward } from './advance.ts';
import { reportedBalance } from './billing.ts';
import { MS_PER_MINUTE, powerMw } from './profiles.ts';
import { step } from './step.ts';
import { advance, DAY, HOUR, kwh, MINUTE, meter, paise, send, states, T0 } from './test-helpers.ts';
import { createTraceMeter } from './trace.ts';
import { type LoadProfile, type MeterState, UNITS_PER_PAISE } from './types.ts';

const oneKw = { kind: 'constant', watts: 1000 } as const;

describe('reported balance rounds toward -infinity', () => {
  const U = UNITS_PER_PAISE;
  it.each([
    [0n, 0],
    [1n, 0],
    [U - 1n, 0],
    [U, 1],
    [-1n, -1],
    [-U, -1],
    [-U - 1n, -2],
    [1234n * U + 5n, 1234],
  ])('%s units -> %d paise', (units, expected) => {
    expect(reportedBalance(units)).toBe(expected);
  });
});

describe('[M-5] exact billing', () => {
  it('charges tariff × energy exactly over a year at an odd load, in one step or 8760 steps', () => {
    const load: LoadProfile = { kind: 'constant', watts: 1234.567 }; // 1234567 mW
    const m = meter({ mode: 'postpaid', ebTariff: 837, load, telemetryPeriodMs: HOUR });
    const oneStep = advance(m, T0 + 365 * DAY).state;
    const expectedEnergy = 1_234_567n * BigInt(365 * DAY);
    expect(oneStep.energy).toBe(expectedEnergy);
    expect(oneStep.balance).toBe(-837n * expectedEnergy);

    let hourly: MeterState = m;
    for (let h = 1; h <= 365 * 24; h++) hourly = advance(hourly, T0 + h * HOUR - (h % 7)).state;
    hourly = advance(hourly, T0 + 365 * DAY).state;
    expect(hourly.energy).toBe(expectedEnergy);
    expect(hourly.balance).toBe(oneStep.balance);
  });

  it('energy is the integral of the per-minute household power', () => {
    const load: LoadProfile = { kind: 'household', seed: 42, peakWatts: 3000 };
    const start = T0 + 17 * MINUTE + 123; // not on a minute
    const end = start + DAY + 4567;
    let expected = 0n;
    for (let t = start; t < end; ) {
      const next = Math.min(end, (Math.floor(t / MS_PER_MINUTE) + 1) * MS_PER_MINUTE);
      expected += BigInt(powerMw(load, t)) * BigInt(next - t);
      t = next;
    }
    const r = advance(meter({ mode: 'postpaid', load }, start), end).state;
    expect(r.energy).toBe(expected);
    expect(r.balance).toBe(-800n * expected);
  });

  it('a switch of active tariff mid-interval bills before at EB and after at DG, exact to the unit [M-7]', () => {
    const m = meter({ mode: 'postpaid', load: oneKw, ebTariff: 800, dgTariff: 2000 });
    const switched = send(m, { op: 'set_active_tariff', tariff: 2 }, T0 + 30 * MINUTE).state;
    const r = advance(switched, T0 + 90 * MINUTE).state;
    expect(r.energy).toBe(kwh(3) / 2n);
    expect(r.balance).toBe(-(800n * (kwh(1) / 2n) + 2000n * kwh(1)));
    expect(reportedBalance(r.balance)).toBe(-2400);
  });

  it('a new tariff value applies from its instant [M-7]', () => {
    const m = meter({ mode: 'postpaid', load: oneKw, ebTariff: 800 });
    const changed = send(m, { op: 'set_tariff', slot: 'eb', paise: 1001 }, T0 + HOUR).state;
    expect(advance(changed, T0 + 3 * HOUR).state.balance).toBe(paise(-(800 + 2 * 1001)));
  });

  it('changing the inactive tariff does not change the bill', () => {
    const m = meter({ mode: 'postpaid', load: oneKw });
    const changed = send(m, { op: 'set_tariff', slot: 'dg', paise: 99_999 }, T0).state;
    expect(advance(changed, T0 + HOUR).state.balance).toBe(paise(-800));
  });

  it('a tariff of 0 bills nothing and never cuts off', () => {
    const m = meter({ mode: 'prepaid', load: oneKw, ebTariff: 0, balance: 0 });
    const r = advance(m, T0 + DAY);
    expect(r.state.energy).toBe(kwh(24));
    expect(r.state.balance).toBe(0n);
    expect(states(r.effects)).toEqual([]);
  });
});

describe('[M-6] prepaid cut-off at the exact millisecond', () => {
  // The least dt with tariff × P × dt > balance, computed independently of billing.ts.
  const cases: { balance: number; watts: number; tariff: number }[] = [
    { balance: 100, watts: 1000, tariff: 800 }, // lands exactly on 0 at 450000 ms, debt at 450001
    { balance: 7, watts: 333.333, tariff: 997 },
    { balance: 1, watts: 999_999.999, tariff: 100_000 },
    { balance: 50_000, watts: 2345.678, tariff: 1234 },
  ];
  it.each(cases)('$balance paise at $watts W and $tariff paise/kWh', ({ balance, watts, tariff }) => {
    const p = BigInt(Math.round(watts * 1000));
    const perMs = BigInt(tariff) * p;
    let lo = 0n; // balance - perMs·lo >= 0
    let hi = paise(balance) / perMs + 10n;
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n;
      if (paise(balance) - perMs * mid >= 0n) lo = mid;
      else hi = mid;
    }
    const cut = T0 + Number(hi);
    const m = meter({ mode: 'prepaid', balance, ebTariff: tariff, load: { kind: 'constant', watts } });

    const before = advance(m, cut - 1);
    expect(states(before.effects)).toEqual([]);
    expect(before.state.balance >= 0n).toBe(true);

    const r = advance(m, cut + 5 * DAY);
    const debt = paise(balance) - perMs * hi;
    const reported = reportedBalance(debt);
    expect(states(r.effects)).toEqual([
      expect.objectContaining({ ts: cut, relay_state: false, balance: reported }),
    ]);
    expect(r.state.energy).toBe(p * hi);
    expect(r.state.balance).toBe(debt);
    expect(r.state.balance < 0n).toBe(true);
  });

  it('an empty prepaid meter at zero load stays closed; a load then cuts it off within 1 ms', () => {
    const m = meter({ mode: 'prepaid', balance: 0 });
    expect(states(advance(m, T0 + DAY).effects)).toEqual([]);
    const loaded = advance(m, T0 + HOUR).state;
    const on = { ...loaded, load: oneKw } as MeterState;
    expect(states(advance(on, T0 + HOUR + 1).effects)).toEqual([
      expect.objectContaining({ ts: T0 + HOUR + 1, relay_state: false }),
    ]);
  });
});

describe('[M-6] [M-8] recharge during cut-off', () => {
  /** Prepaid, relay open, 800 paise in debt (an hour of postpaid at 1 kW first). */
  function cutOff(): MeterState {
    const inDebt = advance(meter({ mode: 'postpaid', load: oneKw }), T0 + HOUR).state;
    return send(inDebt, { op: 'set_mode', mode: 'prepaid' }, T0 + HOUR).state;
  }

  it('a partial recharge that leaves the balance negative keeps the relay open', () => {
    const r = send(cutOff(), { op: 'recharge', amount: 500, transactionId: 'tx-1' }, T0 + HOUR);
    expect(r.reply).toEqual({ ok: true, data: { applied: true, balance: -300 } });
    expect(states(r.effects)).toEqual([expect.objectContaining({ relay_state: false, balance: -300 })]);
    expect(advance(r.state, T0 + 2 * HOUR).state.energy).toBe(kwh(1));
  });

  it('a recharge that brings the balance to >= 0 closes the relay', () => {
    const partial = send(cutOff(), { op: 'recharge', amount: 500, transactionId: 'tx-1' }, T0 + HOUR).state;
    const r = send(partial, { op: 'recharge', amount: 1100, transactionId: 'tx-2' }, T0 + HOUR);
    expect(states(r.effects)).toEqual([expect.objectContaining({ relay_state: true, balance: 800 })]);
    const after = advance(r.state, T0 + 2 * HOUR);
    expect(after.state.energy).toBe(kwh(2));
    expect(after.state.balance).toBe(0n); // exactly used up, not yet below zero: still closed
    expect(states(after.effects)).toEqual([]);
  });

  it('a recharge to exactly 0 closes the relay, which opens again 1 ms into the next flow', () => {
    const r = send(cutOff(), { op: 'recharge', amount: 800, transactionId: 'tx-1' }, T0 + HOUR);
    expect(states(r.effects)).toEqual([expect.objectContaining({ relay_state: true, balance: 0 })]);
    const next = advance(r.state, T0 + 2 * HOUR);
    expect(states(next.effects)).toEqual([
      expect.objectContaining({ ts: T0 + HOUR + 1, relay_state: false }),
    ]);
    expect(next.state.energy).toBe(kwh(1) + 1_000_000n);
  });

  it('a recharge does not close a relay commanded OFF', () => {
    const off = send(cutOff(), { op: 'set_relay', on: false }, T0 + HOUR).state;
    const r = send(off, { op: 'recharge', amount: 5000, transactionId: 'tx-1' }, T0 + HOUR);
    expect(states(r.effects)).toEqual([expect.objectContaining({ relay_state: false, balance: 4200 })]);
  });
});

describe('[M-15] the charged register', () => {
  it('balance = opening + applied recharges − charged, through tariffs, modes, a cut-off, fastForward and trace samples', () => {
    const credits = (paiseIn: number) => paise(paiseIn);
    let m = meter({
      mode: 'prepaid',
      balance: 500,
      ebTariff: 900,
      load: { kind: 'household', seed: 4, peakWatts: 3000 },
    });
    let credited = credits(500);
    m = advance(m, T0 + 6 * HOUR).state; // runs into the prepaid cut-off
    expect(m.charged).toBeGreaterThan(0n);
    m = send(m, { op: 'recharge', amount: 70_000, transactionId: 'r-1' }, T0 + 7 * HOUR).state;
    credited += credits(70_000);
    m = send(m, { op: 'recharge', amount: 70_000, transactionId: 'r-1' }, T0 + 7 * HOUR).state; // a repeat
    m = send(m, { op: 'set_tariff', slot: 'dg', paise: 2_345 }, T0 + 8 * HOUR).state;
    m = send(m, { op: 'set_active_tariff', tariff: 2 }, T0 + 9 * HOUR).state;
    m = send(m, { op: 'set_mode', mode: 'measurement' }, T0 + DAY).state;
    m = send(m, { op: 'set_mode', mode: 'postpaid' }, T0 + 2 * DAY).state;
    m = fastForward(m, T0 + 40 * DAY).state;
    expect(m.balance).toBeLessThan(0n);
    expect(m.balance).toBe(credited - m.charged);

    let t = createTraceMeter({ deviceId: 't-1', balance: 100, mode: 'prepaid' }, T0);
    for (let i = 1; i <= 20; i++) {
      t = step(
        t,
        { type: 'sample', energy: kwh(1) / 10n, readings: { active_power: 6000 } },
        T0 + i * MINUTE,
      ).state;
    }
    expect(t.charged).toBeGreaterThan(0n);
    expect(t.balance).toBe(credits(100) - t.charged);
  });
});
