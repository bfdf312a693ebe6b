import { describe, expect, it } from 'vitest';
import { fastForward } from '../advance.ts';
import { step } from '../step.ts';
import { advance, HOUR, MINUTE, meter, samples, send, states, T0 } from '../test-helpers.ts';
import type { MeterState } from '../types.ts';
import { fault } from './test-faults.ts';

const add = (s: MeterState, f: ReturnType<typeof fault>) =>
  step(s, { type: 'add_fault', fault: f }, s.lastTs).state;

describe('[M-20] clock skew and drift', () => {
  it.each([
    ['skew +120 s', fault('clock_skew', { seconds: 120 }, T0, null), [120_000, 120_000, 120_000]],
    ['skew -30.5 s', fault('clock_skew', { seconds: -30.5 }, T0, null), [-30_500, -30_500, -30_500]],
    ['drift +1000 ppm', fault('clock_drift', { ppm: 1000 }, T0, null), [60, 120, 180]],
    ['drift -500 ppm from 1 min', fault('clock_drift', { ppm: -500 }, T0 + MINUTE, null), [0, -30, -60]],
  ] as const)('[M-20] %s: sample timestamps are off, the schedule is not', (_name, f, offsets) => {
    const r = advance(add(meter(), f), T0 + 3 * MINUTE);
    const xs = samples(r.effects);
    expect(xs.map((x, i) => x.ts - (T0 + (i + 1) * MINUTE))).toEqual(offsets);
    expect(r.state.nextTelemetryTs).toBe(T0 + 4 * MINUTE);
  });

  it('[M-20] state reports carry the meter clock too', () => {
    const s = add(meter(), fault('clock_skew', { seconds: 900 }, T0, null));
    const r = send(s, { op: 'set_mode', mode: 'postpaid' }, T0 + HOUR);
    expect(states(r.effects)[0]!.ts).toBe(T0 + HOUR + 900_000);
  });

  it('[M-24] fastForward of a meter with faults is step(advance), bit for bit', () => {
    let s = meter({
      load: { kind: 'household', seed: 3, peakWatts: 3000 },
      balance: 500,
      telemetryPeriodMs: 15 * MINUTE,
    });
    s = add(s, fault('clock_drift', { ppm: 50 }, T0, null));
    s = add(s, fault('power_outage', {}, T0 + 5 * HOUR, T0 + 7 * HOUR));
    s = add(s, fault('welded_relay', {}, T0 + 10 * HOUR, null));
    const ff = fastForward(s, T0 + 48 * HOUR);
    const ref = advance(s, T0 + 48 * HOUR);
    expect(ff.state).toEqual(ref.state);
    expect(ff.samples).toEqual(samples(ref.effects));
  });
});

describe('[M-23] telemetry gap', () => {
  it('[M-23] samples due while active are never produced; energy and billing go on', () => {
    const load = { kind: 'constant', watts: 600 } as const;
    const s0 = meter({ load, balance: 1000 });
    const plain = advance(s0, T0 + HOUR);
    const r = advance(add(s0, fault('telemetry_gap', {}, T0 + 10 * MINUTE, T0 + 20 * MINUTE)), T0 + HOUR);
    const mins = samples(r.effects).map((x) => (x.ts - T0) / MINUTE);
    expect(mins).toHaveLength(50);
    expect(mins.filter((m) => m >= 10 && m < 20)).toEqual([]);
    expect(r.state.energy).toBe(plain.state.energy);
    expect(r.state.balance).toBe(plain.state.balance);
  });
});
