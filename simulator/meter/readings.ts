// [M-13] What a meter measures at an instant. Primary measurements are rounded as a meter would
// report them (voltage 0.01 V, power factor 0.001; power is exact integer mW); the derived values
// current, apparent and reactive power are computed from those reported values and left unrounded,
// so P = V·I·PF, S = V·I and S² = P² + Q² hold to double precision for anyone checking.

import { reportedBalance } from './billing.ts';
import { dailyShapeAt, MS_PER_MINUTE, powerAt } from './profiles.ts';
import { relayClosed } from './relay.ts';
import { hashString, unitAt } from './rng.ts';
import { type MeterModel, type MeterState, MWMS_PER_KWH, type Sample } from './types.ts';

export interface PropertyInfo {
  property_id: string;
  context_type: 'cumulative' | 'instantaneous';
  unit: string;
}

const BASIC: readonly PropertyInfo[] = [
  { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
  { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
  { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
];

/** Properties each model reports (spec §2 Reading). Power factor is a ratio: its unit is ''. */
export const PROPERTY_CATALOGUE: Readonly<Record<MeterModel, readonly PropertyInfo[]>> = {
  basic: BASIC,
  full: [
    ...BASIC,
    { property_id: 'current', context_type: 'instantaneous', unit: 'A' },
    { property_id: 'power_factor', context_type: 'instantaneous', unit: '' },
    { property_id: 'apparent_power', context_type: 'instantaneous', unit: 'VA' },
    { property_id: 'reactive_power', context_type: 'instantaneous', unit: 'var' },
  ],
};

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
  return Math.round(v * 100) / 100;
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

/** The sample a meter reports at `ts`, for a state already integrated up to `ts`. */
export function readingsAt(state: MeterState, ts: number): Sample {
  const { watts, powerFactor } = relayClosed(state) ? powerAt(state.load, ts) : { watts: 0, powerFactor: 1 };
  const voltage = voltageAt(state.seed, ts);
  const energy = Number(state.energy) / Number(MWMS_PER_KWH);
  const balance = reportedBalance(state.balance);
  if (state.model === 'basic') return { ts, energy, active_power: watts, voltage, balance };
  if (watts === 0) return idleFullSample(ts, energy, voltage, balance);
  const current = watts / (voltage * powerFactor);
  const apparent = voltage * current;
  return {
    ts,
    energy,
    active_power: watts,
    voltage,
    current,
    power_factor: powerFactor,
    apparent_power: apparent,
    reactive_power: Math.sqrt(Math.max(0, apparent * apparent - watts * watts)),
    balance,
  };
}
