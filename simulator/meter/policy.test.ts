// Issue 12 §4: prepaid policies [M-28]-[M-31], table by table, through the real reducer.

import { describe, expect, it } from 'vitest';
import { fastForward } from './advance.ts';
import { isFriendly, nextFriendlyEdge, type PrepaidPolicy, policyProblem } from './policy.ts';
import { deserializeMeter, serializeMeter } from './serialize.ts';
import { step } from './step.ts';
import { advance, HOUR, MINUTE, meter, paise, send, states, T0 } from './test-helpers.ts';
import { createTraceMeter } from './trace.ts';

const oneKw = { kind: 'constant', watts: 1000 } as const;
// 1 kW at 800 paise/kWh takes 8e8 balance units per ms: 1 paise (3.6e12 units) lasts 4500 ms.
const MS_PER_PAISE = 4500;
const policy = (p: Partial<PrepaidPolicy>): PrepaidPolicy => ({
  lowBalanceWarnings: [],
  emergencyCredit: 0,
  friendlyHours: null,
  ...p,
});
const night = { from: '22:00', to: '06:00', holidays: [] as string[] };

describe('[M-29] friendly windows in IST (UTC+05:30, no DST)', () => {
  // T0 is 2024-01-01 00:00 IST.
  const rows: [string, { from: string; to: string; holidays: string[] }, number, boolean][] = [
    ['21:59 before a window wrapping midnight', night, T0 + 21 * HOUR + 59 * MINUTE, false],
    ['22:00 its first minute', night, T0 + 22 * HOUR, true],
    ['00:00 across midnight', night, T0 + 24 * HOUR, true],
    ['05:59:59.999 its last ms', night, T0 + 30 * HOUR - 1, true],
    ['06:00 its end (exclusive)', night, T0 + 30 * HOUR, false],
    ['13:00 in a same-day window', { from: '13:00', to: '15:00', holidays: [] }, T0 + 13 * HOUR, true],
    [
      '15:00 the end of a same-day window',
      { from: '13:00', to: '15:00', holidays: [] },
      T0 + 15 * HOUR,
      false,
    ],
    ['a holiday at 00:00 IST', { ...night, holidays: ['2024-01-02'] }, T0 + 24 * HOUR + 6 * HOUR, true],
    ['a holiday at 23:59 IST', { ...night, holidays: ['2024-01-02'] }, T0 + 48 * HOUR - 1 - 2 * HOUR, true],
    ['the day after a holiday at noon', { ...night, holidays: ['2024-01-02'] }, T0 + 60 * HOUR, false],
    ['22:00 IST in July (same offset)', night, Date.UTC(2024, 6, 1, 16, 30), true],
    ['21:59 IST in July', night, Date.UTC(2024, 6, 1, 16, 29), false],
  ];
  it.each(rows)('%s', (_name, f, t, friendly) => {
    expect(isFriendly(f, t)).toBe(friendly);
  });

  it('the next edge is the next from, to or IST midnight', () => {
    expect(nextFriendlyEdge(night, T0 + 21 * HOUR)).toBe(T0 + 22 * HOUR);
    expect(nextFriendlyEdge(night, T0 + 22 * HOUR)).toBe(T0 + 24 * HOUR);
    expect(nextFriendlyEdge(night, T0 + 24 * HOUR)).toBe(T0 + 30 * HOUR);
  });
});

describe('[M-31] impossible policies are refused with the path of the problem', () => {
  const rows: [string, Partial<PrepaidPolicy>, (string | number)[]][] = [
    ['ascending thresholds', { lowBalanceWarnings: [0, 5000] }, ['lowBalanceWarnings', 1]],
    ['a repeated threshold', { lowBalanceWarnings: [5000, 5000] }, ['lowBalanceWarnings', 1]],
    ['a fractional threshold', { lowBalanceWarnings: [10.5] }, ['lowBalanceWarnings', 0]],
    ['a threshold beyond 1e8', { lowBalanceWarnings: [100_000_001] }, ['lowBalanceWarnings', 0]],
    [
      '65 thresholds',
      { lowBalanceWarnings: Array.from({ length: 65 }, (_, i) => -i) },
      ['lowBalanceWarnings'],
    ],
    ['negative emergency credit', { emergencyCredit: -1 }, ['emergencyCredit']],
    ['emergency credit beyond 1e7', { emergencyCredit: 10_000_001 }, ['emergencyCredit']],
    ['from 24:00', { friendlyHours: { ...night, from: '24:00' } }, ['friendlyHours', 'from']],
    ['to 6:00', { friendlyHours: { ...night, to: '6:00' } }, ['friendlyHours', 'to']],
    ['an empty window', { friendlyHours: { ...night, to: '22:00' } }, ['friendlyHours', 'to']],
    [
      '30 February',
      { friendlyHours: { ...night, holidays: ['2024-02-30'] } },
      ['friendlyHours', 'holidays', 0],
    ],
  ];
  it.each(rows)('%s', (_name, p, loc) => {
    expect(policyProblem(policy(p))?.loc).toEqual(loc);
  });

  it('limits themselves are allowed', () => {
    expect(
      policyProblem(policy({ lowBalanceWarnings: [100_000_000, -100_000_000], emergencyCredit: 10_000_000 })),
    ).toBeNull();
  });

  it('set_prepaid_policy with one throws and changes nothing', () => {
    const m = meter({ balance: 100, load: oneKw });
    expect(() =>
      step(m, { type: 'set_prepaid_policy', policy: policy({ emergencyCredit: -5 }) }, T0 + HOUR),
    ).toThrow(TypeError);
    expect(m.prepaidPolicy).toBeNull();
  });
});

describe('[M-28] emergency credit', () => {
  it('the relay opens at the first ms below -emergencyCredit, with exact billing', () => {
    const m = meter({ balance: 100, load: oneKw, prepaidPolicy: policy({ emergencyCredit: 100 }) });
    const r = advance(m, T0 + HOUR);
    const cut = T0 + 200 * MS_PER_PAISE + 1;
    expect(states(r.effects)).toMatchObject([{ ts: cut, relay_state: false, balance: -101 }]);
    expect(r.state.energy).toBe(1_000_000n * BigInt(cut - T0));
    expect(r.state.balance).toBe(paise(100) - r.state.charged); // [M-15] the ledger check holds
  });

  it('emergency credit exhausted mid-step: the rest of the step has no flow', () => {
    const m = meter({ balance: 0, load: oneKw, prepaidPolicy: policy({ emergencyCredit: 10 }) });
    const r = advance(m, T0 + 10 * MINUTE);
    expect(r.state.energy).toBe(1_000_000n * BigInt(10 * MS_PER_PAISE + 1));
  });

  it('a recharge back to >= -emergencyCredit closes the relay again', () => {
    const m = meter({ balance: 0, load: oneKw, prepaidPolicy: policy({ emergencyCredit: 10 }) });
    const cut = advance(m, T0 + HOUR).state;
    const r = send(cut, { op: 'recharge', amount: 2, transactionId: 't1' }, T0 + HOUR);
    expect(states(r.effects)).toMatchObject([{ relay_state: true, balance: -9 }]);
  });

  it('setting a policy on a cut-off meter in debt closes the relay at once', () => {
    const cut = advance(meter({ balance: 0, load: oneKw }), T0 + HOUR).state;
    const r = step(cut, { type: 'set_prepaid_policy', policy: policy({ emergencyCredit: 5 }) }, T0 + HOUR);
    expect(states(r.effects)).toMatchObject([{ ts: T0 + HOUR, relay_state: true, low_balance: null }]);
  });
});

describe('[M-29] friendly hours defer the cut-off to the end of the window', () => {
  const start = T0 + 23 * HOUR; // 23:00 IST, inside 22:00–06:00
  const at = (p: Partial<PrepaidPolicy>, balance = 100) =>
    meter({ balance, load: oneKw, prepaidPolicy: policy(p) }, start);

  it('a balance that runs out at night is cut off at 06:00 IST, billed up to it', () => {
    const r = advance(at({ friendlyHours: night }), T0 + 31 * HOUR);
    expect(states(r.effects)).toMatchObject([
      { ts: T0 + 30 * HOUR, relay_state: false, balance: 100 - 7 * 800 },
    ]);
    expect(r.state.balance).toBe(paise(100 - 7 * 800));
  });

  it('the relay closes again when the next window opens', () => {
    const r = advance(at({ friendlyHours: night }), T0 + 47 * HOUR);
    expect(states(r.effects).map((s) => [s.ts, s.relay_state])).toEqual([
      [T0 + 30 * HOUR, false],
      [T0 + 46 * HOUR, true],
    ]);
  });

  it('a holiday chains with the night window: the cut-off waits for the end of both', () => {
    const r = advance(at({ friendlyHours: { ...night, holidays: ['2024-01-02'] } }), T0 + 60 * HOUR);
    expect(states(r.effects)).toMatchObject([{ ts: T0 + 54 * HOUR, relay_state: false }]);
  });

  it('a recharge during the window: no cut-off when it ends', () => {
    const m = advance(at({ friendlyHours: night }), T0 + 26 * HOUR).state; // 02:00, 2300 paise in debt
    const r = send(m, { op: 'recharge', amount: 10_000, transactionId: 't1' }, T0 + 26 * HOUR);
    const after = advance(r.state, T0 + 31 * HOUR);
    expect(states(after.effects)).toEqual([]);
  });

  it('with emergency credit too, the cut-off outside a window is at -emergencyCredit', () => {
    const m = meter(
      { balance: 100, load: oneKw, prepaidPolicy: policy({ emergencyCredit: 100, friendlyHours: night }) },
      T0 + 12 * HOUR,
    );
    const r = advance(m, T0 + 13 * HOUR);
    expect(states(r.effects)).toMatchObject([
      { ts: T0 + 12 * HOUR + 200 * MS_PER_PAISE + 1, relay_state: false },
    ]);
  });
});

describe('[M-30] low-balance warnings', () => {
  const warned = (balance = 100) =>
    meter({
      balance,
      load: oneKw,
      prepaidPolicy: policy({ lowBalanceWarnings: [50, 0], emergencyCredit: 20 }),
    });

  it('a state at the exact ms of each downward crossing, then the cut-off', () => {
    const r = advance(warned(), T0 + HOUR);
    expect(states(r.effects).map((s) => [s.ts - T0, s.low_balance, s.relay_state])).toEqual([
      [50 * MS_PER_PAISE + 1, 50, true],
      [100 * MS_PER_PAISE + 1, 0, true],
      [120 * MS_PER_PAISE + 1, 0, false],
    ]);
  });

  it('exactly at a threshold is not below it', () => {
    const r = advance(warned(), T0 + 50 * MS_PER_PAISE);
    expect(states(r.effects)).toEqual([]);
    expect(step(r.state, { type: 'advance' }, T0 + 50 * MS_PER_PAISE + 1).effects).toMatchObject([
      { type: 'state', state: { low_balance: 50, balance: 49 } },
    ]);
  });

  it('once per crossing; a recharge above re-arms it', () => {
    const low = advance(warned(), T0 + 60 * MS_PER_PAISE).state;
    expect(states(advance(low, T0 + 90 * MS_PER_PAISE).effects)).toEqual([]);
    const r = send(low, { op: 'recharge', amount: 100, transactionId: 't1' }, T0 + 60 * MS_PER_PAISE);
    expect(states(r.effects)).toMatchObject([{ low_balance: null, balance: 140 }]);
    const again = advance(r.state, T0 + 200 * MS_PER_PAISE);
    expect(states(again.effects).map((s) => s.low_balance)).toEqual([50]);
  });

  it('a trace sample falling through a threshold reports it at the sample', () => {
    const m = {
      ...createTraceMeter({ deviceId: 'tr', balance: 100 }, T0),
      prepaidPolicy: policy({ lowBalanceWarnings: [50] }),
    };
    const r = step(
      m,
      { type: 'sample', energy: 1_000_000n * 240_000n, readings: { active_power: 1000 } },
      T0 + MINUTE,
    );
    expect(states(r.effects)).toMatchObject([{ ts: T0 + MINUTE, low_balance: 50, relay_state: true }]);
  });
});

describe('policies leave the rest unchanged', () => {
  it.each(['postpaid', 'measurement'] as const)('%s: same energy and balance, no warnings', (mode) => {
    const p = policy({ lowBalanceWarnings: [50, 0], emergencyCredit: 20, friendlyHours: night });
    const a = advance(meter({ mode, balance: 100, load: oneKw }), T0 + 2 * HOUR);
    const b = advance(meter({ mode, balance: 100, load: oneKw, prepaidPolicy: p }), T0 + 2 * HOUR);
    expect([b.state.energy, b.state.balance]).toEqual([a.state.energy, a.state.balance]);
    expect(states(b.effects)).toEqual([]);
  });

  it('no policy: no low_balance field, and an old snapshot reads as none', () => {
    const m = meter({ balance: 100, load: oneKw });
    expect(advance(m, T0 + HOUR).effects.find((e) => e.type === 'state')).not.toHaveProperty(
      'state.low_balance',
    );
    const old = JSON.parse(serializeMeter(m));
    delete old.prepaidPolicy;
    expect(deserializeMeter(JSON.stringify(old)).prepaidPolicy).toBeNull();
  });

  it('a policy survives a snapshot', () => {
    const m = meter({ prepaidPolicy: policy({ lowBalanceWarnings: [5], friendlyHours: night }) });
    expect(deserializeMeter(serializeMeter(m))).toEqual(m);
  });

  it('fastForward gives step’s result for a meter with a policy', () => {
    const p = policy({ lowBalanceWarnings: [50, 0], emergencyCredit: 20, friendlyHours: night });
    const m = meter({
      balance: 100,
      load: { kind: 'household', seed: 7, peakWatts: 3000 },
      prepaidPolicy: p,
    });
    const ref = advance(m, T0 + 3 * 24 * HOUR);
    const ff = fastForward(m, T0 + 3 * 24 * HOUR);
    expect(ff.state).toEqual(ref.state);
    expect(ff.samples.length).toBe(3 * 24 * 60);
  });
});
