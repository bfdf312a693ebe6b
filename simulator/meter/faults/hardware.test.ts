import { describe, expect, it } from 'vitest';
import { step } from '../step.ts';
import { advance, HOUR, MINUTE, meter, paise, samples, send, states, T0 } from '../test-helpers.ts';
import type { MeterState } from '../types.ts';
import { fault } from './test-faults.ts';

const load = { kind: 'constant', watts: 1000 } as const;
const add = (s: MeterState, f: ReturnType<typeof fault>) =>
  step(s, { type: 'add_fault', fault: f }, s.lastTs).state;

describe('[M-21] welded relay', () => {
  it('[M-21] commanded off: the load still flows and is billed; the meter reports relay_state false and power > 0', () => {
    let s = add(meter({ load, mode: 'postpaid', balance: 0 }), fault('welded_relay', {}, T0, null));
    const off = send(s, { op: 'set_relay', on: false }, T0);
    expect(states(off.effects)[0]).toMatchObject({ relay_commanded: false, relay_state: false });
    s = off.state;
    const r = advance(s, T0 + HOUR);
    expect(r.state.energy).toBe(3_600_000_000_000n);
    expect(r.state.balance).toBe(paise(-800));
    for (const x of samples(r.effects)) expect(x.active_power).toBe(1000);
  });

  it('[M-21] prepaid: the cut-off is reported but cannot stop the flow; the balance keeps falling', () => {
    const s = add(meter({ load, balance: 400 }), fault('welded_relay', {}, T0, null));
    const r = advance(s, T0 + HOUR);
    expect(states(r.effects)).toEqual([expect.objectContaining({ relay_state: false })]); // [M-6] at 30 min
    expect(r.state.energy).toBe(3_600_000_000_000n);
    expect(r.state.balance).toBe(paise(400 - 800));
  });

  it('[M-21] ended: the relay logic holds again (open, nothing flows)', () => {
    const s0 = send(meter({ load, mode: 'postpaid' }), { op: 'set_relay', on: false }, T0).state;
    const s = add(s0, fault('welded_relay', {}, T0, T0 + 30 * MINUTE));
    const r = advance(s, T0 + HOUR);
    expect(r.state.energy).toBe(1_800_000_000_000n);
    const last = samples(r.effects).at(-1)!;
    expect(last.active_power).toBe(0);
  });
});

describe('[M-21] relay stuck open', () => {
  it('[M-21] commanded on: no current flows, nothing billed; relay_state reports what the logic says', () => {
    const s = add(meter({ load, mode: 'postpaid' }), fault('relay_stuck_open', {}, T0, T0 + HOUR));
    const r = advance(s, T0 + HOUR);
    expect(r.state.energy).toBe(0n);
    expect(r.state.balance).toBe(0n);
    for (const x of samples(r.effects).slice(0, -1)) expect(x.active_power).toBe(0);
    expect(samples(r.effects).at(-1)!.active_power).toBe(1000); // at `until` it is no longer active
    const read = send(r.state, { op: 'read' }, T0 + HOUR);
    expect(read.reply).toMatchObject({ ok: true, data: { state: { relay_state: true } } });
  });
});

describe('[M-22] tamper', () => {
  it('[M-22] a state report with tamper at the start, and without it at the end', () => {
    let s = meter();
    s = add(s, fault('tamper', { type: 'magnet' }, T0 + MINUTE, T0 + 2 * MINUTE));
    s = add(s, fault('tamper', { type: 'cover_open' }, T0 + 90_000, T0 + 3 * MINUTE));
    const r = advance(s, T0 + 5 * MINUTE);
    expect(states(r.effects).map((x) => [(x.ts - T0) / 1000, x.tamper])).toEqual([
      [60, ['magnet']],
      [90, ['cover_open', 'magnet']],
      [120, ['cover_open']],
      [180, undefined],
    ]);
  });

  it('[M-22] added now: reported at once; cleared: reported at once', () => {
    const r1 = step(
      meter(),
      { type: 'add_fault', fault: fault('tamper', { type: 'cover_open' }, T0, null, 'F1') },
      T0,
    );
    expect(states(r1.effects)).toEqual([expect.objectContaining({ tamper: ['cover_open'] })]);
    const r2 = step(r1.state, { type: 'clear_faults', ids: 'all' }, T0 + MINUTE);
    expect(states(r2.effects)).toHaveLength(1);
    expect(states(r2.effects)[0]).not.toHaveProperty('tamper');
  });
});
