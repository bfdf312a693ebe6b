// fastForward must give bit-identical state and samples to step(advance) (the reference integrator).

import { describe, expect, it } from 'vitest';
import { fastForward } from './advance.ts';
import type { CreateMeterOptions } from './create.ts';
import { hash32 } from './rng.ts';
import { advance, DAY, HOUR, MINUTE, meter, paise, samples, T0 } from './test-helpers.ts';
import type { MeterState } from './types.ts';

const house = (seed: number, peakWatts = 3000) => ({ kind: 'household', seed, peakWatts }) as const;
const QUARTER = 15 * MINUTE;

interface Case {
  name: string;
  opts: Partial<CreateMeterOptions>;
  span: number;
  /** Applied to the new meter, for states createMeter cannot express. */
  patch?: Partial<MeterState>;
  from?: number;
}

const cases: Case[] = [
  {
    name: 'household postpaid, full model',
    opts: { model: 'full', mode: 'postpaid', load: house(1) },
    span: 30 * DAY,
  },
  {
    name: 'household prepaid that cuts off',
    opts: { mode: 'prepaid', balance: 3000, load: house(2) },
    span: 10 * DAY,
  },
  {
    name: 'prepaid balance beyond 2^52 mW·ms',
    opts: { mode: 'prepaid', balance: 1e9, load: house(3) },
    span: 20 * DAY,
  },
  { name: 'measurement', opts: { mode: 'measurement', balance: 10, load: house(4) }, span: 20 * DAY },
  { name: 'relay_off', opts: { mode: 'relay_off', load: house(5) }, span: 5 * DAY },
  {
    name: 'relay commanded off',
    opts: { mode: 'postpaid', relayCommanded: false, load: house(6) },
    span: 5 * DAY,
  },
  {
    name: 'prepaid in debt from the start',
    opts: { mode: 'prepaid', balance: -1, load: house(7) },
    span: 5 * DAY,
  },
  { name: 'prepaid at tariff 0', opts: { mode: 'prepaid', ebTariff: 0, load: house(8) }, span: 5 * DAY },
  { name: 'DG tariff', opts: { mode: 'postpaid', activeTariff: 2, load: house(9) }, span: 5 * DAY },
  {
    name: '1 MW for a year at a daily period: many folds near 2^52',
    opts: { mode: 'postpaid', load: { kind: 'constant', watts: 1e6 }, telemetryPeriodMs: DAY },
    span: 365 * DAY,
  },
  {
    name: '1 MW prepaid with a huge balance: budget clamped, then cut-off',
    opts: {
      mode: 'prepaid',
      balance: 1e9,
      load: { kind: 'constant', watts: 999_999.999 },
      telemetryPeriodMs: DAY,
    },
    span: 60 * DAY,
  },
  {
    name: 'cut-off exactly on a telemetry boundary',
    opts: { mode: 'prepaid', load: { kind: 'constant', watts: 1000 }, telemetryPeriodMs: QUARTER },
    patch: { balance: 899_999n * 800_000_000n },
    span: HOUR,
  },
  {
    name: 'unaligned start and end, odd constant load',
    opts: { mode: 'postpaid', load: { kind: 'constant', watts: 7.777, powerFactor: 0.5 }, model: 'full' },
    from: T0 + 7 * MINUTE + 13,
    span: 3 * DAY + 12_345,
  },
];

describe('fastForward ≡ step(advance)', () => {
  it.each(cases)('$name', ({ opts, span, patch, from = T0 }) => {
    const m: MeterState = { ...meter({ telemetryPeriodMs: QUARTER, ...opts }, from), ...patch };
    const ref = advance(m, from + span);
    const fast = fastForward(m, from + span);
    expect(fast.state).toStrictEqual(ref.state);
    expect(fast.samples).toStrictEqual(samples(ref.effects));
    expect(fast.samples.length).toBeGreaterThan(0);
  });

  it('agrees on 300 cut-offs at seeded positions', () => {
    let cutOffs = 0;
    for (let i = 0; i < 300; i++) {
      const load =
        i % 2 === 0 ? house(i, 500 + (hash32(1, i) % 5000)) : { kind: 'constant' as const, watts: i * 37.7 };
      const tariff = 1 + (hash32(2, i) % 3000);
      const m = meter({ mode: 'prepaid', load, ebTariff: tariff, telemetryPeriodMs: QUARTER });
      // credit for 0..~4.8 kWh plus a remainder, in units, so the crossing lands anywhere in a segment
      const energy = BigInt(hash32(3, i)) * BigInt(1 + (hash32(4, i) % 4000));
      const s = { ...m, balance: BigInt(tariff) * energy + BigInt(hash32(5, i) % tariff) };
      const ref = advance(s, T0 + 6 * HOUR);
      const fast = fastForward(s, T0 + 6 * HOUR);
      expect(fast.state).toStrictEqual(ref.state);
      expect(fast.samples).toStrictEqual(samples(ref.effects));
      if (ref.state.balance < 0n) cutOffs++;
    }
    expect(cutOffs).toBeGreaterThan(200);
  });

  it('agrees on cut-offs at the first and last ms of a minute of household load', () => {
    const m = meter({ mode: 'prepaid', load: house(99), telemetryPeriodMs: QUARTER });
    for (let k = 1; k <= 30; k++) {
      const minute = T0 + k * 17 * MINUTE;
      // energy drawn up to an instant, metered without billing
      const drawn = (t: number) => advance({ ...m, mode: 'measurement' }, t).state.energy;
      for (const [credit, cut] of [
        [drawn(minute + MINUTE - 1), minute + MINUTE], // the minute's last ms takes it below zero
        [drawn(minute), minute + 1], // its first ms does
        [drawn(minute) - 1n, minute], // the previous minute's last ms does
      ] as const) {
        const s = { ...m, balance: 800n * credit };
        const ref = advance(s, T0 + DAY);
        expect(ref.effects.find((e) => e.type === 'state')).toMatchObject({ state: { ts: cut } });
        const fast = fastForward(s, T0 + DAY);
        expect(fast.state).toStrictEqual(ref.state);
        expect(fast.samples).toStrictEqual(samples(ref.effects));
      }
    }
  });

  it('actually cuts off in the prepaid case (the table is not vacuous)', () => {
    const m = meter({ mode: 'prepaid', balance: 3000, load: house(2), telemetryPeriodMs: QUARTER });
    const r = fastForward(m, T0 + 10 * DAY).state;
    expect(r.balance < 0n && r.balance > -paise(1000)).toBe(true);
    expect(r.energy).toBeGreaterThan(0n);
  });

  it('in pieces equals in one go, and step can carry on from where it stopped', () => {
    const m = meter({ mode: 'postpaid', load: house(10), telemetryPeriodMs: QUARTER }, T0);
    const whole = fastForward(m, T0 + 4 * DAY);
    const first = fastForward(m, T0 + DAY + 12_345);
    const second = advance(first.state, T0 + 2 * DAY + 1);
    const third = fastForward(second.state, T0 + 4 * DAY);
    expect(third.state).toStrictEqual(whole.state);
    expect([...first.samples, ...samples(second.effects), ...third.samples]).toStrictEqual(whole.samples);
  });

  it('does not go back in time and does not modify its input', () => {
    const m = advance(meter({ load: house(11), mode: 'postpaid' }), T0 + DAY).state;
    const copy = structuredClone(m);
    expect(fastForward(m, T0)).toStrictEqual({ state: m, samples: [] });
    fastForward(m, T0 + 3 * DAY);
    expect(m).toStrictEqual(copy);
  });
});
