// [M-13] What a meter measures at an instant, and [M-16] at what resolution it reports it: each value
// is rounded to the register resolution its model declares (RESOLUTIONS, announced in `info` [MC-4.4]).
// Current, apparent and reactive power are derived from the unrounded power and the reported voltage
// and power factor, then rounded, so P = V·I·PF, S = V·I and S² = P² + Q² hold to those resolutions.

import { reportedBalance } from './billing.ts';
import { meterTs } from './faults/clock.ts';
import { currentFlows } from './faults/hardware.ts';
import { faultVolts } from './faults/power.ts';
import { dailyShapeAt, MS_PER_MINUTE, powerAt } from './profiles.ts';
import { energyKwhAtWh, placesOf, roundTo } from './quantize.ts';
import { registerMwms } from './register.ts';
import { relayClosed } from './relay.ts';
import { hashString, unitAt } from './rng.ts';
import type { MeterModel, MeterState, Sample } from './types.ts';

/** A measured property of a sample (everything but `ts` and `balance`). */
export type SampleProperty = Exclude<keyof Sample, 'ts' | 'balance'>;

export interface PropertyInfo {
  property_id: string;
  context_type: 'cumulative' | 'instantaneous';
  unit: string;
  /** [MC-4.4] The step of the reported values: each is a whole multiple of it. */
  resolution?: number;
}

/**
 * [M-16] The register resolution each model reports each property at (a power of ten). Both models
 * share one set today; a model with coarser registers would say so here.
 */
export const RESOLUTIONS: Readonly<Record<MeterModel, Readonly<Partial<Record<SampleProperty, number>>>>> = {
  basic: { energy: 0.001, active_power: 0.1, voltage: 0.01 },
  full: {
    energy: 0.001,
    active_power: 0.1,
    voltage: 0.01,
    current: 0.001,
    power_factor: 0.001,
    apparent_power: 0.1,
    reactive_power: 0.1,
  },
};

const BASIC: readonly Omit<PropertyInfo, 'resolution'>[] = [
  { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
  { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
  { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
];
const FULL: readonly Omit<PropertyInfo, 'resolution'>[] = [
  ...BASIC,
  { property_id: 'current', context_type: 'instantaneous', unit: 'A' },
  { property_id: 'power_factor', context_type: 'instantaneous', unit: '' },
  { property_id: 'apparent_power', context_type: 'instantaneous', unit: 'VA' },
  { property_id: 'reactive_power', context_type: 'instantaneous', unit: 'var' },
];

const withResolution = (model: MeterModel, props: readonly Omit<PropertyInfo, 'resolution'>[]) =>
  props.map((p) => ({ ...p, resolution: RESOLUTIONS[model][p.property_id as SampleProperty]! }));

/**
 * Properties each model reports (spec §2 Reading), with their resolution [M-16]. Power factor is a
 * ratio: its unit is ''.
 */
export const PROPERTY_CATALOGUE: Readonly<Record<MeterModel, readonly PropertyInfo[]>> = {
  basic: withResolution('basic', BASIC),
  full: withResolution('full', FULL),
};

/** Decimal places per property and model, from RESOLUTIONS: what the rounding below uses. */
type Places = Record<SampleProperty, number>;
const placesFor = (model: MeterModel): Places => {
  const places = {} as Places;
  for (const [id, res] of Object.entries(RESOLUTIONS[model])) places[id as SampleProperty] = placesOf(res);
  return places;
};
export const PLACES: Readonly<Record<MeterModel, Readonly<Places>>> = {
  basic: placesFor('basic'),
  full: placesFor('full'),
};
// The fast paths below assume these; a model with other registers changes them with RESOLUTIONS.
for (const p of [PLACES.basic, PLACES.full]) {
  if (p.energy !== 3) throw new Error('readings.ts: energyKwhAtWh reports energy to the Wh');
  if (p.voltage !== 2) throw new Error('readings.ts: voltageAt reports voltage to 0.01 V');
}

/**
 * [M-16] `sample` with every measured value rounded to `model`'s resolution (energy as given is
 * already rounded to the Wh by energyKwhAtWh where the register is known; rounding it again is exact).
 */
export function quantizeSample(sample: Sample, model: MeterModel): Sample {
  const places = PLACES[model];
  const out: Sample = { ...sample };
  for (const key of Object.keys(places) as SampleProperty[]) {
    const v = out[key];
    if (v !== undefined) out[key] = roundTo(v, places[key]);
  }
  return out;
}

const STREAM_VOLTAGE_NOISE = 11;
const STREAM_VOLTAGE_DAY = 12;
// Distinct from the household streams even if a meter's seed equals its load's seed.
const VOLTAGE_SALT = hashString('voltage');

/**
 * Supply voltage, constant within a minute: it sags as the neighbourhood's demand rises
 * (~240 V at night, ~231 V at the evening peak), plus a daily offset and per-minute noise; 228..243 V.
 */
export function voltageAt(seed: number, ts: number): number {
  const minute = Math.floor(ts / MS_PER_MINUTE);
  const day = Math.floor(minute / 1440);
  const seedV = seed ^ VOLTAGE_SALT;
  const dayOffset = 3 * (unitAt(seedV, day, STREAM_VOLTAGE_DAY) - 0.5);
  const noise = 3 * (unitAt(seedV, minute, STREAM_VOLTAGE_NOISE) - 0.5);
  const v = 240 - 9 * dailyShapeAt(ts) + dayOffset + noise;
  return roundTo(v, PLACES.full.voltage);
}

/** [M-19] The meter's own per-minute measurement noise (±1.5 V), the same as in voltageAt. */
export function voltageNoiseAt(seed: number, ts: number): number {
  const minute = Math.floor(ts / MS_PER_MINUTE);
  return 3 * (unitAt(seed ^ VOLTAGE_SALT, minute, STREAM_VOLTAGE_NOISE) - 0.5);
}

/** A `full` meter's sample with no current flowing: S = Q = I = 0 and, by convention, PF 1. */
export function idleFullSample(ts: number, energy: number, voltage: number, balance: number): Sample {
  // Object literals with every key, not spreads: this runs once per sample in a year-long backfill.
  return {
    ts,
    energy,
    active_power: 0,
    voltage,
    current: 0,
    power_factor: 1,
    apparent_power: 0,
    reactive_power: 0,
    balance,
  };
}

/** Whether current flows at `ts`: the relay's logic [M-3], or what the faults make of it ([M-18], [M-21]). */
export function flowsAt(state: MeterState, ts: number): boolean {
  return state.faults.length !== 0 ? currentFlows(state, ts) : relayClosed(state, ts);
}

/**
 * The sample a meter reports at `ts`, for a state already integrated up to `ts` ([M-13], [M-16]), with
 * its register's epoch once it was ever reset [M-25].
 */
export function readingsAt(state: MeterState, ts: number): Sample {
  const sample =
    state.faults.length !== 0
      ? faultedReadingsAt(state, ts)
      : measure(state, ts, relayClosed(state, ts), voltageAt(state.seed, ts));
  if (state.registerEpoch > 0) sample.register_epoch = state.registerEpoch;
  return sample;
}

/**
 * readingsAt with faults: current flows as the faults say ([M-18], [M-21]), a sag or swell sets the
 * voltage (± the meter's own per-minute noise, [M-19]) and the timestamp is the meter's clock's [M-20].
 */
function faultedReadingsAt(state: MeterState, ts: number): Sample {
  const volts = faultVolts(state.faults, ts);
  const voltage =
    volts === undefined
      ? voltageAt(state.seed, ts)
      : roundTo(volts + voltageNoiseAt(state.seed, ts), PLACES.full.voltage);
  const sample = measure(state, ts, currentFlows(state, ts), voltage);
  sample.ts = meterTs(state.faults, ts);
  return sample;
}

function measure(state: MeterState, ts: number, flows: boolean, voltage: number): Sample {
  const { watts, powerFactor } = flows ? powerAt(state.load, ts) : { watts: 0, powerFactor: 1 };
  const places = PLACES[state.model];
  const energy = energyKwhAtWh(registerMwms(state)); // [M-25] the register shown
  const balance = reportedBalance(state.balance);
  const activePower = roundTo(watts, places.active_power);
  if (state.model === 'basic') return { ts, energy, active_power: activePower, voltage, balance };
  if (watts === 0) return idleFullSample(ts, energy, voltage, balance);
  const pf = roundTo(powerFactor, places.power_factor);
  const current = watts / (voltage * pf);
  const apparent = voltage * current;
  return {
    ts,
    energy,
    active_power: activePower,
    voltage,
    current: roundTo(current, places.current),
    power_factor: pf,
    apparent_power: roundTo(apparent, places.apparent_power),
    reactive_power: roundTo(
      Math.sqrt(Math.max(0, apparent * apparent - watts * watts)),
      places.reactive_power,
    ),
    balance,
  };
}
