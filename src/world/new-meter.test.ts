// issue 8 item 8: the sliced backfill gives exactly the history and state of the one-go backfill, in
// slices small enough to write between two turns of the event loop.

import { describe, expect, it } from 'vitest';
import type { Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';
import { fastForward } from '../../simulator/meter/index.ts';
import { DAY_MS } from '../time/ist.ts';
import { BACKFILL_SLICE_SAMPLES, backfillSlices, newMeterPlan, newMeterState } from './new-meter.ts';
import type { NewDeviceInput } from './world.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 34, 56, 789);

const inputs: [string, NewDeviceInput][] = [
  [
    'full postpaid household, 40 days at 1 min',
    {
      accountId: 1,
      spaceId: null,
      model: 'full',
      mode: 'postpaid',
      seed: 7,
      backfillDays: 40,
      backfillPeriodS: 60,
      load: { kind: 'household', seed: 7, peakWatts: 3000 },
    },
  ],
  [
    'basic prepaid that cuts off, 90 days at 15 min, live period 10 s',
    {
      accountId: 1,
      spaceId: null,
      model: 'basic',
      mode: 'prepaid',
      balance: 20_000,
      seed: 3,
      backfillDays: 90,
      backfillPeriodS: 900,
      telemetryPeriodS: 10,
      load: { kind: 'household', seed: 3, peakWatts: 2500 },
    },
  ],
];

describe('backfillSlices (issue 8 item 8, spec decision 52)', () => {
  for (const [name, input] of inputs) {
    it(`[issue 8 item 8] slices add up to the one-go history and state: ${name}`, () => {
      const plan = newMeterPlan(input, 'MTR-X', NOW);
      const whole = fastForward(plan.initial, NOW);
      const sliced: Sample[] = [];
      let state = plan.initial;
      let slices = 0;
      for (const slice of backfillSlices(plan.initial, NOW)) {
        expect(slice.samples.length).toBeLessThanOrEqual(BACKFILL_SLICE_SAMPLES);
        for (const s of slice.samples) sliced.push(s);
        state = slice.state;
        slices++;
      }
      expect(slices).toBeGreaterThan(1);
      expect(state).toStrictEqual(whole.state);
      expect(sliced).toStrictEqual(whole.samples);
      expect(plan.live(state)).toStrictEqual(newMeterState(input, 'MTR-X', 1, NOW).state);
      expect(plan.initial.lastTs).toBe(NOW - (input.backfillDays ?? 0) * DAY_MS);
    });
  }

  it('yields nothing when there is nothing to backfill', () => {
    const plan = newMeterPlan({ accountId: 1, spaceId: null }, 'MTR-X', NOW);
    expect([...backfillSlices(plan.initial, NOW)]).toEqual([]);
    expect(plan.days).toBe(0);
  });
});
