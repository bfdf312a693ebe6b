// A new virtual meter's first state, with its backfilled history when asked for: the meter is
// "installed" `backfillDays` ago with the given opening balance and lives through the days since,
// so the history, the energy register and the balance agree with each other to the paise.
//
// The history comes in slices of at most BACKFILL_SLICE_SAMPLES samples (`backfillSlices`), so the
// world can write each slice and let other requests run before it computes the next: a year of
// minute samples in one go held the event loop for seconds and 230 MB (issue 8 item 8, spec decision 52).
// fastForward in pieces equals fastForward in one go (simulator/meter/advance.test.ts), so the slices
// add up to exactly the history `newMeterState` computes at once.

import {
  createMeter,
  type FastForwardResult,
  fastForward,
  nextBoundary,
} from '../../simulator/meter/index.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import { sampleRow } from '../store/sample-row.ts';
import type { SampleRow } from '../store/types.ts';
import { DAY_MS } from '../time/ist.ts';
import type { NewDeviceInput } from './types.ts';

/**
 * Samples per slice. Computing and writing one costs a few µs, so a slice holds the event loop for
 * ~10-20 ms: well under the 50 ms a backfill may take at a time.
 */
export const BACKFILL_SLICE_SAMPLES = 1024;

export interface NewMeterPlan {
  /** The meter as installed: `days` before now, with the backfill's telemetry period. */
  initial: MeterState;
  /** Days of history to backfill; 0 for none. */
  days: number;
  /** The state the meter goes live with, once it has lived up to now. */
  live(state: MeterState): MeterState;
}

export function newMeterPlan(input: NewDeviceInput, deviceId: string, now: number): NewMeterPlan {
  const periodMs = (input.telemetryPeriodS ?? 60) * 1000;
  const days = input.backfillDays ?? 0;
  const backfillPeriodMs = (input.backfillPeriodS ?? periodMs / 1000) * 1000;
  const initial = createMeter(
    {
      deviceId,
      model: input.model,
      mode: input.mode,
      balance: input.balance,
      ebTariff: input.ebTariff,
      dgTariff: input.dgTariff,
      activeTariff: input.activeTariff,
      load: input.load,
      seed: input.seed,
      telemetryPeriodMs: days > 0 ? backfillPeriodMs : periodMs,
      prepaidPolicy: input.prepaidPolicy,
    },
    now - days * DAY_MS,
  );
  return {
    initial,
    days,
    live: (state) =>
      days === 0
        ? state
        : { ...state, telemetryPeriodMs: periodMs, nextTelemetryTs: nextBoundary(state.lastTs, periodMs) },
  };
}

/**
 * The backfill from `state` up to `to`, one slice at a time: each slice's samples and the state after
 * them. Pure: the caller decides what happens between slices.
 */
export function* backfillSlices(
  state: MeterState,
  to: number,
  maxSamples = BACKFILL_SLICE_SAMPLES,
): Generator<FastForwardResult> {
  const span = Math.max(1, Math.floor(maxSamples * state.telemetryPeriodMs));
  let s = state;
  while (s.lastTs < to) {
    const next = fastForward(s, Math.min(to, s.lastTs + span));
    s = next.state;
    yield next;
  }
}

/** The whole thing in one go: the reference the sliced backfill must equal. */
export function newMeterState(
  input: NewDeviceInput,
  deviceId: string,
  devicePk: number,
  now: number,
): { state: MeterState; samples: SampleRow[] } {
  const plan = newMeterPlan(input, deviceId, now);
  if (plan.days === 0) return { state: plan.initial, samples: [] };
  const { state, samples } = fastForward(plan.initial, now);
  return { state: plan.live(state), samples: samples.map((s) => sampleRow(devicePk, s)) };
}
