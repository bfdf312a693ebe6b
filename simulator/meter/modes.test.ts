// spec §3: the mode table and the transition table, row by row, plus how the rows interact.

import { describe, expect, it } from 'vitest';
import { relayClosedFor } from './relay.ts';
import { advance, HOUR, kwh, meter, paise, send, sendAll, states, T0 } from './test-helpers.ts';
import { type MeterState, MODES, type Mode } from './types.ts';

const oneKw = { kind: 'constant', watts: 1000 } as const;

describe('[M-3] effective relay, derived from mode, command and balance', () => {
  // balance: -1 unit (a tiny debt), 0, +1 unit
  const rows: [Mode, boolean, bigint, boolean][] = [
    ['prepaid', true, -1n, false],
    ['prepaid', true, 0n, true],
    ['prepaid', true, 1n, true],
    ['prepaid', false, 1n, false],
    ['postpaid', true, -1n, true],
    ['postpaid', true, 1n, true],
    ['postpaid', false, 1n, false],
    ['postpaid', false, -1n, false],
    ['measurement', true, -1n, true],
    ['measurement', true, 1n, true],
    ['measurement', false, 1n, false],
    ['relay_off', true, 1n, false],
    ['relay_off', true, -1n, false],
    ['relay_off', false, 1n, false],
  ];
  it.each(rows)('%s, commanded %s, balance %s units -> closed %s', (mode, commanded, balance, closed) => {
    expect(relayClosedFor(mode, commanded, balance)).toBe(closed);
  });
});

describe('spec §3 mode table', () => {
  it('prepaid: relay disconnects when balance is below zero [M-6]', () => {
    // 100 paise at 800 paise/kWh and 1 kW: 8e8 units/ms; 3.6e14 units last 450000 ms, the next ms is debt.
    const m = meter({ mode: 'prepaid', balance: 100, load: oneKw });
    const r = advance(m, T0 + HOUR);
    expect(r.state.energy).toBe(1_000_000n * 450_001n);
    expect(r.state.balance).toBe(paise(100) - 800n * 1_000_000n * 450_001n);
    expect(states(r.effects)).toMatchObject([{ ts: T0 + 450_001, relay_state: false, balance: -1 }]);
  });

  it('postpaid: relay stays connected and balance may go negative', () => {
    const r = advance(meter({ mode: 'postpaid', balance: 0, load: oneKw }), T0 + 10 * HOUR);
    expect(r.state.energy).toBe(kwh(10));
    expect(r.state.balance).toBe(paise(-8000));
    expect(states(r.effects)).toEqual([]);
    const later = advance(r.state, T0 + 11 * HOUR);
    expect(later.state.energy).toBe(kwh(11)); // still flowing while in debt
  });

  it('measurement: usage is measured without billing; balance unaffected [M-5]', () => {
    const r = advance(meter({ mode: 'measurement', balance: 500, load: oneKw }), T0 + 10 * HOUR);
    expect(r.state.energy).toBe(kwh(10));
    expect(r.state.balance).toBe(paise(500));
  });

  it('relay_off: relay forcibly disconnected, overriding commanded ON and a positive balance [M-4]', () => {
    const m = meter({ mode: 'relay_off', relayCommanded: true, balance: 10_000, load: oneKw });
    const r = advance(m, T0 + 10 * HOUR);
    expect(r.state.energy).toBe(0n);
    expect(r.state.balance).toBe(paise(10_000));
    const last = r.effects.at(-1);
    expect(last).toMatchObject({ type: 'telemetry', sample: { active_power: 0 } });
    expect(last?.type === 'telemetry' && last.sample.voltage).toBeGreaterThan(200); // still measured
  });
});

describe('spec §3 transition table: mode operation (any mode -> the requested mode)', () => {
  const pairs = MODES.flatMap((from) => MODES.map((to) => [from, to] as const));
  it.each(pairs)('%s -> %s', (from, to) => {
    const r = send(meter({ mode: from, balance: 100 }), { op: 'set_mode', mode: to }, T0);
    expect(r.reply).toEqual({ ok: true });
    expect(r.state.mode).toBe(to);
    expect(states(r.effects).map((s) => s.mode)).toEqual(from === to ? [] : [to]); // [M-10]
  });

  it.each(['PREPAID', 'off', '', 3])('rejects mode %j with invalid_argument and keeps the mode', (mode) => {
    const r = send(meter({ mode: 'postpaid' }), { op: 'set_mode', mode: mode as Mode }, T0);
    expect(r.reply).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(r.state.mode).toBe('postpaid');
  });
});

describe('spec §3 transition table: relay operation (relay ON when true, OFF when false)', () => {
  it.each([
    [true, true],
    [true, false],
    [false, true],
    [false, false],
  ])('from commanded %s, set_relay %s', (from, on) => {
    const m = meter({ mode: 'postpaid', relayCommanded: from, load: oneKw });
    const r = send(m, { op: 'set_relay', on }, T0);
    expect(r.reply).toEqual({ ok: true });
    expect(states(r.effects)).toEqual(from === on ? [] : [expect.objectContaining({ relay_state: on })]);
    expect(advance(r.state, T0 + HOUR).state.energy).toBe(on ? kwh(1) : 0n);
  });
});

describe('spec §3 transition table: active tariff (selected tariff is used for billing)', () => {
  it.each([
    [1, 2, 2000],
    [2, 1, 800],
    [1, 1, 800],
    [2, 2, 2000],
  ] as const)('from %d, select %d: one kWh costs %d paise', (from, to, cost) => {
    const m = meter({ mode: 'postpaid', activeTariff: from, load: oneKw });
    const r = send(m, { op: 'set_active_tariff', tariff: to }, T0);
    expect(r.state.activeTariff).toBe(to);
    expect(advance(r.state, T0 + HOUR).state.balance).toBe(paise(-cost));
  });

  it.each([0, 3, '1', null])('rejects %j', (tariff) => {
    const r = send(meter(), { op: 'set_active_tariff', tariff: tariff as 1 }, T0);
    expect(r.reply).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    expect(r.state.activeTariff).toBe(1);
  });
});

describe('spec §3 transition table: payment gateway flag', () => {
  it.each([
    [false, true],
    [true, false],
  ])('from %s to %s', (from, enabled) => {
    const r = send(meter({ pgEnabled: from }), { op: 'set_gateway', enabled }, T0);
    expect(r.state.pgEnabled).toBe(enabled);
    expect(states(r.effects)).toEqual([expect.objectContaining({ pg_enabled: enabled })]);
  });

  it('rejects a non-boolean', () => {
    const r = send(meter(), { op: 'set_gateway', enabled: 'yes' as unknown as boolean }, T0);
    expect(r.reply).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
  });
});

describe('interactions between the rows', () => {
  it('a relay command in relay_off is remembered and takes effect when the mode leaves relay_off [M-3]', () => {
    let m: MeterState = meter({ mode: 'relay_off', relayCommanded: false, load: oneKw });
    const on = send(m, { op: 'set_relay', on: true }, T0);
    expect(states(on.effects)).toEqual([
      expect.objectContaining({ relay_commanded: true, relay_state: false }),
    ]);
    m = advance(on.state, T0 + HOUR).state;
    expect(m.energy).toBe(0n);
    const left = send(m, { op: 'set_mode', mode: 'postpaid' }, T0 + HOUR);
    expect(states(left.effects)).toEqual([expect.objectContaining({ relay_state: true })]);
    expect(advance(left.state, T0 + 2 * HOUR).state.energy).toBe(kwh(1));
  });

  it('a relay OFF command in relay_off keeps it open after leaving relay_off', () => {
    const m = sendAll(
      meter({ mode: 'relay_off', load: oneKw }),
      [
        { op: 'set_relay', on: false },
        { op: 'set_mode', mode: 'postpaid' },
      ],
      T0,
    );
    expect(advance(m, T0 + HOUR).state.energy).toBe(0n);
  });

  it('postpaid -> prepaid with a negative balance opens the relay; prepaid -> postpaid closes it', () => {
    const inDebt = advance(meter({ mode: 'postpaid', load: oneKw }), T0 + HOUR).state; // -800 paise
    const pre = send(inDebt, { op: 'set_mode', mode: 'prepaid' }, T0 + HOUR);
    expect(states(pre.effects)).toEqual([expect.objectContaining({ relay_state: false, balance: -800 })]);
    const stillOpen = advance(pre.state, T0 + 2 * HOUR).state;
    expect(stillOpen.energy).toBe(kwh(1));
    const post = send(stillOpen, { op: 'set_mode', mode: 'postpaid' }, T0 + 2 * HOUR);
    expect(states(post.effects)).toEqual([expect.objectContaining({ relay_state: true })]);
    expect(advance(post.state, T0 + 3 * HOUR).state.balance).toBe(paise(-1600));
  });

  it('a mode change applies from its instant: billed before, unbilled after [M-7]', () => {
    const m = send(
      meter({ mode: 'postpaid', load: oneKw }),
      { op: 'set_mode', mode: 'measurement' },
      T0 + HOUR,
    );
    const r = advance(m.state, T0 + 5 * HOUR);
    expect(r.state.energy).toBe(kwh(5));
    expect(r.state.balance).toBe(paise(-800));
  });
});
