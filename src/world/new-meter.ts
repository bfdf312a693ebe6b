// A new virtual meter's first state, with its backfilled history when asked for: the meter is
// "installed" `backfillDays` ago with the given opening balance and lives through the days since,
// so the history, the energy register and the balance agree with each other to the paise.

import { createMeter, fastForward, nextBoundary } from '../../simulator/meter/index.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import { sampleRow } from '../store/sample-row.ts';
import type { SampleRow } from '../store/types.ts';
import { DAY_MS } from '../time/ist.ts';
import type { NewDeviceInput } from './world.ts';

export function newMeterState(
  input: NewDeviceInput,
  deviceId: string,
  devicePk: number,
  now: number,
): { state: MeterState; samples: SampleRow[] } {
  const periodMs = (input.telemetryPeriodS ?? 60) * 1000;
  const days = input.backfillDays ?? 0;
  const backfillPeriodMs = (input.backfillPeriodS ?? periodMs / 1000) * 1000;
  const installedAt = now - days * DAY_MS;
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
    },
    installedAt,
  );
  if (days === 0) return { state: initial, samples: [] };
  const { state, samples } = fastForward(initial, now);
  return {
    state: { ...state, telemetryPeriodMs: periodMs, nextTelemetryTs: nextBoundary(state.lastTs, periodMs) },
    samples: samples.map((s) => sampleRow(devicePk, s)),
  };
}
