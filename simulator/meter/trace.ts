// [M-14] A trace-driven meter: the same meter (relay, modes, billing, commands, WiFi), but what it
// measures comes from a recorded or written trace instead of a load profile. It never samples on its
// own; each `sample` event books the energy the trace says flowed and reports the trace's readings.

import { billingRate, reportedBalance } from './billing.ts';
import { type CreateMeterOptions, createMeter, reportedState } from './create.ts';
import { energyKwhAtWh } from './quantize.ts';
import { idleFullSample, quantizeSample, voltageAt } from './readings.ts';
import { registerMwms } from './register.ts';
import { relayClosed } from './relay.ts';
import type { MeterEffect, MeterEvent, MeterState, Sample, StepResult, TraceReadings } from './types.ts';

export type SampleEvent = Extract<MeterEvent, { type: 'sample' }>;

/**
 * A meter for a trace to drive: no load (nothing flows between samples) and no telemetry of its own
 * (`nextTelemetryTs` is +Infinity, so [M-2] never falls due); `telemetryPeriodMs` stays the nominal
 * period it announces.
 */
export function createTraceMeter(opts: Omit<CreateMeterOptions, 'load'>, now: number): MeterState {
  const state = createMeter({ ...opts, load: { kind: 'constant', watts: 0 } }, now);
  return { ...state, nextTelemetryTs: Number.POSITIVE_INFINITY };
}

/**
 * [M-14] Applies a trace sample at `t` to the draft `s` (already integrated up to `t`): with the relay
 * closed the energy is booked and billed at the active tariff ([M-5], exact); with it open nothing
 * flows ([M-4]) and the power readings are zero. One telemetry sample at `t`; then, if the sample took
 * a prepaid balance below zero, the relay opens at `t` ([M-6] at sample resolution) and a state effect
 * reports it ([M-10]). Only the relay can change here, so only it is compared (a year of samples
 * makes no reported-state objects).
 */
export function sampleStep(s: MeterState, event: SampleEvent, t: number, effects: MeterEffect[]): StepResult {
  if (typeof event.energy !== 'bigint' || event.energy < 0n)
    throw new TypeError('sample: energy must be a bigint >= 0 (mW·ms since the previous sample)');
  const closed = relayClosed(s, t);
  const low = s.prepaidPolicy === null ? null : reportedState(s, t).low_balance; // [M-30]
  if (closed) {
    const charge = billingRate(s) * event.energy;
    s.energy += event.energy;
    s.balance -= charge;
    s.charged += charge; // [M-15]
  }
  effects.push({ type: 'telemetry', sample: traceSample(s, event.readings, t, closed) });
  if (relayClosed(s, t) !== closed || (s.prepaidPolicy !== null && reportedState(s, t).low_balance !== low))
    effects.push({ type: 'state', state: reportedState(s, t) });
  return { state: s, effects };
}

/**
 * What a trace meter reports at `ts`: its registers, and the trace's readings `r` (power zero through an
 * open relay), at its model's resolution [M-16].
 */
export function traceSample(s: MeterState, r: TraceReadings, ts: number, closed: boolean): Sample {
  const sample = quantizeSample(unroundedTraceSample(s, r, ts, closed), s.model);
  if (s.registerEpoch > 0) sample.register_epoch = s.registerEpoch; // [M-25]
  return sample;
}

function unroundedTraceSample(s: MeterState, r: TraceReadings, ts: number, closed: boolean): Sample {
  const energy = energyKwhAtWh(registerMwms(s)); // [M-25] the register shown
  const balance = reportedBalance(s.balance);
  const voltage = r.voltage ?? voltageAt(s.seed, ts);
  if (s.model === 'basic') return { ts, energy, active_power: closed ? r.active_power : 0, voltage, balance };
  if (!closed || r.active_power === 0) return idleFullSample(ts, energy, voltage, balance);
  // What the trace leaves out is derived from what it has (see readings.ts for the same identities).
  const p = r.active_power;
  const q = r.reactive_power;
  const apparent =
    r.apparent_power ??
    (q !== undefined
      ? Math.hypot(p, q)
      : r.power_factor
        ? p / r.power_factor
        : r.current
          ? voltage * r.current
          : p);
  return {
    ts,
    energy,
    active_power: p,
    voltage,
    current: r.current ?? (voltage > 0 ? apparent / voltage : 0),
    power_factor:
      r.power_factor ?? (apparent > 0 ? Math.min(1, Math.round((p / apparent) * 1000) / 1000) : 1),
    apparent_power: apparent,
    reactive_power: q ?? Math.sqrt(Math.max(0, apparent * apparent - p * p)),
    balance,
  };
}
