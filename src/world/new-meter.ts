// A new virtual meter's first state, with its backfilled history when asked for: the meter is
// "installed" `backfillDays` ago with the given opening balance and lives through the days since,
// so the history, the energy register and the balance agree with each other to the paise.

import { createMeter, fastForward, nextBoundary } from '../../simulator/meter/index.ts';
import type { MeterState, Sample } from '../../simulator/meter/types.ts';
import type { SampleRow } from '../store/types.ts';
import type { NewDeviceInput } from './world.ts';

const DAY_MS = 86_400_000;

export function sampleRow(devicePk: number, s: Sample): SampleRow {
  return {
    devicePk,
    ts: s.ts,
    energy: s.energy,
    active_power: s.active_power,
    voltage: s.voltage,
    current: s.current ?? null,
    power_factor: s.power_factor ?? null,
    apparent_power: s.apparent_power ?? null,
    reactive_power: s.reactive_power ?? null,
    balance: s.balance,
  };
}

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
