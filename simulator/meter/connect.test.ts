// [M-17] The connect sample: one true reading at the instant a meter connects, outside the periodic
// schedule of [M-2], counting no energy twice.

import { describe, expect, it } from 'vitest';
import { fastForward } from './advance.ts';
import { readingsAt } from './readings.ts';
import { step } from './step.ts';
import { advance, DAY, MINUTE, meter, samples, T0 } from './test-helpers.ts';
import { createTraceMeter } from './trace.ts';

const household = { kind: 'household', seed: 3, peakWatts: 3000 } as const;

describe('[M-17] connect sample', () => {
  it('emits the samples due up to now, then exactly one sample of the readings at now', () => {
    const m = meter({ model: 'full', mode: 'prepaid', balance: 5_000, load: household });
    const at = T0 + 3 * MINUTE + 1234;
    const r = step(m, { type: 'connect' }, at);
    const got = samples(r.effects);
    expect(got.map((s) => s.ts)).toEqual([T0 + MINUTE, T0 + 2 * MINUTE, T0 + 3 * MINUTE, at]);
    expect(got.at(-1)).toEqual(readingsAt(r.state, at));
    expect(r.state).toEqual(advance(m, at).state); // nothing changes but the time
  });

  it('leaves the periodic schedule, energy and balance exactly as without it (a day, bit for bit)', () => {
    const m = meter({ model: 'basic', mode: 'prepaid', balance: 20_000, ebTariff: 900, load: household });
    let s = m;
    for (const at of [T0 + 7 * MINUTE + 5, T0 + 9 * 60 * MINUTE, T0 + 9 * 60 * MINUTE + 1])
      s = step(s, { type: 'connect' }, at).state;
    const withConnects = advance(s, T0 + DAY);
    const without = fastForward(m, T0 + DAY);
    expect(withConnects.state).toEqual(without.state);
    expect(samples(withConnects.effects).at(-1)).toEqual(without.samples.at(-1));
    expect(withConnects.state.nextTelemetryTs).toBe(T0 + DAY + MINUTE);
  });

  it('a trace meter reports the readings it was given, with its registers as they stand', () => {
    const tm = createTraceMeter({ deviceId: 't-1', model: 'basic', mode: 'postpaid' }, T0);
    const s1 = step(
      tm,
      { type: 'sample', energy: 60_000_000_000n, readings: { active_power: 1000 } },
      T0 + MINUTE,
    );
    const r = step(
      s1.state,
      { type: 'connect', readings: { active_power: 1000, voltage: 231.004 } },
      T0 + 2 * MINUTE,
    );
    expect(samples(r.effects)).toEqual([
      { ts: T0 + 2 * MINUTE, energy: 0.017, active_power: 1000, voltage: 231, balance: expect.any(Number) },
    ]);
    expect(r.state.energy).toBe(60_000_000_000n); // nothing booked by connecting
  });
});
