import { describe, expect, it } from 'vitest';
import { step } from '../step.ts';
import { advance, HOUR, MINUTE, meter, T0 } from '../test-helpers.ts';
import { nextFaultEdge } from './edges.ts';
import { fault } from './test-faults.ts';

describe('[M-24] fault edges', () => {
  it('[M-24] the next edge is the first from/until strictly after t', () => {
    const fs = [fault('telemetry_gap', {}, 100, 300), fault('tamper', { type: 'magnet' }, 200, null)];
    expect([0, 100, 150, 200, 300].map((t) => nextFaultEdge(fs, t))).toEqual([100, 200, 200, 300, Infinity]);
  });

  it('[M-24] a scheduled fault stays until past its until, then is dropped; an open-ended one stays', () => {
    let s = meter();
    s = step(
      s,
      { type: 'add_fault', fault: fault('telemetry_gap', {}, T0 + HOUR, T0 + 2 * HOUR, 'F1') },
      T0,
    ).state;
    s = step(s, { type: 'add_fault', fault: fault('clock_skew', { seconds: 1 }, T0, null, 'F2') }, T0).state;
    expect(advance(s, T0 + 2 * HOUR - 1).state.faults.map((f) => f.id)).toEqual(['F1', 'F2']);
    expect(advance(s, T0 + 2 * HOUR).state.faults.map((f) => f.id)).toEqual(['F2']);
    expect(s.faultSeq).toBe(2);
  });

  it('[M-24] with no faults the state and effects are those of a meter that never had one', () => {
    const load = { kind: 'constant', watts: 500 } as const;
    const s = meter({ load, balance: 100 });
    const f = fault('tamper', { type: 'magnet' }, T0 + MINUTE, T0 + 2 * MINUTE);
    const had = advance(step(s, { type: 'add_fault', fault: f }, T0).state, T0 + 3 * MINUTE).state;
    const never = advance(s, T0 + 3 * MINUTE).state;
    expect({ ...had, faultSeq: 0 }).toEqual(never);
  });
});
