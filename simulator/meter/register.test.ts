// [M-25] [M-26] [M-27] The displayed register against the billed energy: resets, rollovers and a new
// meter move only the register; money never notices. The fault handlers are tested as pure functions.

import { describe, expect, it } from 'vitest';
import { decode } from '../../firmware-protocol/mqtt/codec.ts';
import { registerFaultHandlers, rolloverProblem } from './faults/register.ts';
import type { Fault } from './faults/types.ts';
import { meterInfo } from './info.ts';
import { deserializeMeter, serializeMeter } from './serialize.ts';
import { step } from './step.ts';
import { advance, HOUR, MINUTE, meter, samples, T0 } from './test-helpers.ts';
import type { MeterEffect, MeterState } from './types.ts';

const KW1 = { kind: 'constant', watts: 1000 } as const;
/** A 1 kW load that flows (postpaid: no balance needed). */
const on = (o: Parameters<typeof meter>[0] = {}) => meter({ load: KW1, mode: 'postpaid', ...o });
const reset: Fault = { id: 'F1', kind: 'register_reset', params: {}, from: T0, until: null, seed: 1 };
const rollover = (max_kwh: number): Fault => ({
  id: 'F2',
  kind: 'register_rollover',
  params: { max_kwh },
  from: T0,
  until: null,
  seed: 1,
});

/** Calls a handler's edge on a copy, as H1's integration does at the fault's instant. */
function edge(s: MeterState, fault: Fault, which: 'start' | 'end', t: number) {
  const draft = { ...s };
  const effects: MeterEffect[] = [];
  registerFaultHandlers[fault.kind]![which]!(draft, fault, t, effects);
  return { state: draft, effects };
}

describe('[M-25] register_reset', () => {
  it('the register reads zero in a new epoch; energy, balance and charged do not move', () => {
    const m = advance(on(), T0 + 2 * HOUR).state;
    const { state: r, effects } = edge(m, reset, 'start', T0 + 2 * HOUR);
    // A final reading of the old register at the instant: what flowed since the last sample is kept.
    expect(samples(effects)).toEqual([expect.objectContaining({ ts: T0 + 2 * HOUR, energy: 2 })]);
    expect(samples(effects)[0]).not.toHaveProperty('register_epoch');
    expect([r.energy, r.balance, r.charged]).toEqual([m.energy, m.balance, m.charged]);
    expect(r.registerEpoch).toBe(1);
    const after = samples(advance(r, T0 + 2 * HOUR + 2 * MINUTE).effects);
    expect(after.map((x) => [x.energy, x.register_epoch])).toEqual([
      [0.017, 1],
      [0.033, 1],
    ]);
    // The same consumption is billed as without the reset.
    expect(advance(r, T0 + 3 * HOUR).state.charged).toBe(advance(m, T0 + 3 * HOUR).state.charged);
  });

  it('a meter never reset sends no register_epoch (the field is absent = 0, MC-7.9)', () => {
    const s = samples(advance(on(), T0 + 2 * MINUTE).effects);
    expect(s[0]).not.toHaveProperty('register_epoch');
  });
});

describe('[M-26] register_rollover', () => {
  it('counts modulo max_kwh from its start, info says so, and its end keeps the value shown', () => {
    const m = advance(on(), T0 + HOUR).state; // 1 kWh
    const { state: r, effects } = edge(m, rollover(1.5), 'start', T0 + HOUR);
    expect(effects).toEqual([{ type: 'info' }]);
    expect(meterInfo(r).register_max_kwh).toBe(1.5);
    const at = (s: MeterState, t: number) => samples(advance(s, t).effects).at(-1)!.energy;
    expect(at(r, T0 + HOUR + 29 * MINUTE)).toBeCloseTo(1.483, 6);
    expect(at(r, T0 + HOUR + 31 * MINUTE)).toBeCloseTo(0.017, 6); // 1.517 mod 1.5
    const later = advance(r, T0 + 2 * HOUR).state; // 2 kWh: shows 0.5
    const ended = edge(later, rollover(1.5), 'end', T0 + 2 * HOUR);
    expect(ended.effects).toEqual([{ type: 'info' }]);
    expect(meterInfo(ended.state)).not.toHaveProperty('register_max_kwh');
    expect(at(ended.state, T0 + 2 * HOUR + MINUTE)).toBeCloseTo(0.517, 6);
    expect(advance(ended.state, T0 + 3 * HOUR).state.charged).toBe(advance(m, T0 + 3 * HOUR).state.charged);
  });

  it.each([
    [0.5, 'must exceed the register the meter shows now, 1 kWh'],
    [1, 'must exceed'],
    [0.0001, 'at least 0.001'],
  ])('rolloverProblem: max_kwh %s on a register at 1 kWh → %s', (max, problem) => {
    const m = advance(on(), T0 + HOUR).state;
    expect(rolloverProblem(m, { max_kwh: max })).toContain(problem);
  });

  it('rolloverProblem: none for a maximum above the register; one rollover at a time', () => {
    const m = advance(on(), T0 + HOUR).state;
    expect(rolloverProblem(m, { max_kwh: 1.001 })).toBeNull();
    const r = edge(m, rollover(5), 'start', T0 + HOUR).state;
    expect(rolloverProblem(r, { max_kwh: 10 })).toContain('already rolls over at 5 kWh');
  });
});

describe('[M-26] clearing a rollover', () => {
  it('ends it as at its until: the value shown is kept, info drops the maximum', () => {
    let m = advance(on(), T0 + HOUR).state;
    m = step(m, { type: 'add_fault', fault: rollover(1.5) }, T0 + HOUR).state;
    m = edge(m, rollover(1.5), 'start', T0 + HOUR).state; // as H1's integration does at `from`
    m = advance(m, T0 + 2 * HOUR).state; // 2 kWh: shows 0.5
    const c = step(m, { type: 'clear_faults', ids: ['F2'] }, T0 + 2 * HOUR);
    expect(c.effects).toEqual([{ type: 'info' }]);
    expect(c.state.registerMax).toBeNull();
    expect(samples(advance(c.state, T0 + 2 * HOUR + MINUTE).effects)[0]!.energy).toBe(0.517);
    // Clearing other faults leaves an active rollover alone.
    const other = step(m, { type: 'clear_faults', ids: ['F9'] }, T0 + 2 * HOUR);
    expect([other.effects, other.state.registerMax]).toEqual([[], m.registerMax]);
  });
});

describe('[M-27] replace', () => {
  it('a new serial, the register from zero in a new epoch, no faults; money and settings carried', () => {
    let m = advance(on({ balance: 5000, mode: 'prepaid' }), T0 + HOUR).state;
    m = step(m, { type: 'add_fault', fault: rollover(100) }, T0 + HOUR).state;
    const r = step(m, { type: 'replace', serial: 'SN-NEW' }, T0 + HOUR);
    // The old register's final reading at the instant, then the new info.
    expect(r.effects).toEqual([
      { type: 'telemetry', sample: expect.objectContaining({ ts: T0 + HOUR, energy: 1 }) },
      { type: 'info' },
    ]);
    expect(r.effects[0]).not.toHaveProperty('sample.register_epoch');
    expect(r.state).toMatchObject({
      serial: 'SN-NEW',
      registerEpoch: 1,
      faults: [],
      faultSeq: 1,
      energy: m.energy,
      balance: m.balance,
      charged: m.charged,
      mode: m.mode,
      ebTariff: m.ebTariff,
    });
    expect(meterInfo(r.state).serial).toBe('SN-NEW');
    expect(samples(advance(r.state, T0 + HOUR + MINUTE).effects)[0]).toMatchObject({
      energy: 0.017,
      register_epoch: 1,
    });
  });
});

describe('[M-25] snapshots and info', () => {
  it('round-trip serial, epoch, base and max exactly', () => {
    const m = edge(
      edge(advance(on(), T0 + HOUR).state, reset, 'start', T0).state,
      rollover(3),
      'start',
      T0,
    ).state;
    expect(deserializeMeter(serializeMeter(m))).toStrictEqual(m);
  });

  it('an old snapshot reads the serial derived from the device id, epoch 0, no base, no rollover', () => {
    const o = JSON.parse(serializeMeter(meter({ deviceId: 'MTR-7' })));
    for (const k of ['serial', 'registerEpoch', 'registerBase', 'registerMax']) delete o[k];
    expect(deserializeMeter(JSON.stringify(o))).toMatchObject({
      serial: 'SN-MTR-7',
      registerEpoch: 0,
      registerBase: 0n,
      registerMax: null,
    });
  });

  it('[MC-4.5] [MC-4.6] meterInfo decodes under the contract, with and without a maximum', () => {
    const m = meter({ model: 'full', serial: 'SN 0001/A' });
    for (const s of [m, edge(m, rollover(99_999.999), 'start', T0).state]) {
      const decoded = decode('info', JSON.stringify(meterInfo(s)));
      expect(decoded.ok).toBe(true);
    }
  });
});

describe('[M-25] a reset between Wh steps', () => {
  it('carries the fraction the last reading rounded away: old last + new = what flowed, to the Wh', () => {
    const read = (x: MeterState, t: number) =>
      samples(step(x, { type: 'connect' }, t).effects).at(-1)!.energy;
    const at = T0 + 62 * MINUTE + 240; // 1.0334 kWh, read as 1.033: 0.4 Wh left out
    const m = advance(on(), at).state;
    const last = samples(edge(m, reset, 'start', at).effects)[0]!.energy;
    const r = edge(m, reset, 'start', at).state;
    const end = T0 + 120 * MINUTE + 2_880; // 2.0008 kWh in all: 0.9674 on the new register
    expect(last).toBe(1.033);
    expect(read(m, end)).toBe(2.001);
    expect(Math.round((last + read(r, end)) * 1000) / 1000).toBe(2.001); // without the carry: 1.033 + 0.967
  });
});
