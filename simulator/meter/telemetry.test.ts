// [M-1] [M-2] Time and telemetry: every period boundary yields one sample, taken at its instant.

import { describe, expect, it } from 'vitest';
import { readingsAt } from './readings.ts';
import { step } from './step.ts';
import { advance, DAY, HOUR, MINUTE, meter, paise, samples, send, states, T0 } from './test-helpers.ts';
import type { MeterEffect } from './types.ts';

const household = { kind: 'household', seed: 7, peakWatts: 2500 } as const;

describe('[M-2] telemetry boundaries', () => {
  it.each([
    [15 * MINUTE, 30 * DAY, 2880],
    [MINUTE, DAY, 1440],
    [HOUR, 365 * DAY, 8760],
  ])('period %d ms over %d ms in one step: %d samples, one per boundary', (period, span, count) => {
    const start = Math.ceil(T0 / period) * period;
    const m = meter({ telemetryPeriodMs: period, load: household, mode: 'postpaid' }, start);
    const r = advance(m, start + span);
    const ts = samples(r.effects).map((s) => s.ts);
    expect(ts).toHaveLength(count);
    expect(ts.every((t, i) => t === start + (i + 1) * period)).toBe(true);
    expect(r.state.nextTelemetryTs).toBe(start + span + period);
  });

  it('aligns to epoch multiples of the period, not to the creation time', () => {
    const m = meter({ telemetryPeriodMs: 15 * MINUTE }, T0 + 7 * MINUTE + 123);
    expect(m.nextTelemetryTs).toBe(T0 + 15 * MINUTE);
    expect(samples(advance(m, T0 + 45 * MINUTE - 1).effects).map((s) => s.ts)).toEqual([
      T0 + 15 * MINUTE,
      T0 + 30 * MINUTE,
    ]);
  });

  it('a meter created on a boundary reports first at the next one', () => {
    const m = meter({ telemetryPeriodMs: 15 * MINUTE }, T0);
    expect(m.nextTelemetryTs).toBe(T0 + 15 * MINUTE);
    expect(samples(advance(m, T0).effects)).toEqual([]);
  });

  it('each sample holds the values at its instant, whether reached in one step or many', () => {
    const m = meter({ telemetryPeriodMs: 5 * MINUTE, load: household, model: 'full', mode: 'postpaid' });
    const oneStep = samples(advance(m, T0 + 6 * HOUR).effects);
    const manySteps: MeterEffect[] = [];
    let s = m;
    for (let t = T0 + 777; t <= T0 + 6 * HOUR; t += 777) {
      const r = advance(s, t);
      manySteps.push(...r.effects);
      s = r.state;
    }
    manySteps.push(...advance(s, T0 + 6 * HOUR).effects);
    expect(samples(manySteps)).toStrictEqual(oneStep);
    // and each equals readingsAt of the state integrated to exactly that instant
    const third = oneStep[2]!;
    expect(third).toStrictEqual(readingsAt(advance(m, third.ts).state, third.ts));
  });

  it('a sample due exactly at `now` is taken before the event at `now` applies', () => {
    const m = meter({
      mode: 'postpaid',
      telemetryPeriodMs: 15 * MINUTE,
      load: { kind: 'constant', watts: 100 },
    });
    const r = step(m, { type: 'set_load', load: { kind: 'constant', watts: 900 } }, T0 + 15 * MINUTE);
    expect(samples(r.effects)).toMatchObject([{ ts: T0 + 15 * MINUTE, active_power: 100 }]);
    expect(samples(advance(r.state, T0 + 30 * MINUTE).effects)).toMatchObject([{ active_power: 900 }]);
  });

  it('a cut-off on a boundary is reported before the sample, which shows the open relay', () => {
    // 1 kW at 800 paise/kWh costs 8e8 units per ms: this balance lasts until exactly 15 min.
    const m = {
      ...meter({ mode: 'prepaid', load: { kind: 'constant', watts: 1000 }, telemetryPeriodMs: 15 * MINUTE }),
    };
    m.balance = 899_999n * 800_000_000n;
    const r = advance(m, T0 + 15 * MINUTE);
    expect(r.effects.map((e) => e.type)).toEqual(['state', 'telemetry']);
    expect(samples(r.effects)).toMatchObject([{ active_power: 0, balance: -1 }]);
  });

  it('samples keep coming while the relay is open, with voltage and zero power', () => {
    const m = meter({ mode: 'relay_off', load: household, telemetryPeriodMs: HOUR });
    const got = samples(advance(m, T0 + DAY).effects);
    expect(got).toHaveLength(24);
    expect(got.every((s) => s.active_power === 0 && s.voltage > 220)).toBe(true);
  });
});

describe('[M-1] time never runs backwards', () => {
  it('an advance to an earlier time changes nothing', () => {
    const m = advance(meter({ load: household, mode: 'postpaid' }), T0 + HOUR).state;
    const r = advance(m, T0 + 30 * MINUTE);
    expect(r.effects).toEqual([]);
    expect(r.state).toStrictEqual(m);
  });

  it('a command stamped earlier applies at lastTs', () => {
    const m = advance(meter(), T0 + HOUR).state;
    const r = send(m, { op: 'recharge', amount: 10, transactionId: 'late' }, T0);
    expect(r.state.lastTs).toBe(T0 + HOUR);
    expect(states(r.effects)).toMatchObject([{ ts: T0 + HOUR, balance: 10 }]);
    expect(r.state.balance).toBe(paise(10));
  });

  it('meter time is whole milliseconds: a fractional now is floored', () => {
    const r = advance(meter({ load: { kind: 'constant', watts: 1 }, mode: 'postpaid' }), T0 + 10.9);
    expect(r.state.lastTs).toBe(T0 + 10);
    expect(r.state.energy).toBe(10_000n);
  });

  it('step does not modify the state it is given', () => {
    const m = meter({ load: household, mode: 'prepaid', balance: 100 });
    const copy = structuredClone(m);
    send(m, { op: 'set_wifi', ssid: 'x', password: '' }, T0 + DAY);
    step(m, { type: 'button', holdSeconds: 10 }, T0 + DAY);
    expect(m).toStrictEqual(copy);
  });
});
