// A telemetry payload checked by hand: the hot path of a receiver taking thousands a second. It gives
// the same verdict and the same value as TelemetrySchema (schemas.ts), which stays the definition and
// gives every error: this only says "valid, and here is what the schema returns" or "ask the schema".
// Their equality is a property test over valid and invalid payloads (telemetry-check.test.ts).
// Rules as in TelemetrySchema: [MC-7.2] [MC-7.3] [MC-7.4] [MC-7.5] [MC-7.9] [MC-3.7] [MC-3.6].

import { MAX_SAMPLES, type SamplePayload, type TelemetryPayload } from './schemas.ts';
import { CONTRACT_VERSION } from './topics.ts';

/** z.number(): a finite number. */
const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
/** z.int(): a safe integer. */
const isInt = (x: unknown): x is number => Number.isSafeInteger(x);

/**
 * The value TelemetrySchema.safeParse(input) returns when it succeeds (only known keys, in the schema's
 * order), or null when it would not, or might not: then the caller asks the schema.
 */
export function telemetryIfValid(input: Record<string, unknown>): TelemetryPayload | null {
  if (input['v'] !== CONTRACT_VERSION) return null;
  const raw = input['samples'];
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > MAX_SAMPLES) return null;
  const samples: SamplePayload[] = [];
  let prev: SamplePayload | null = null;
  for (const item of raw) {
    const s = sampleIfValid(item);
    if (s === null || (prev !== null && !follows(s, prev))) return null;
    samples.push(s);
    prev = s;
  }
  return { v: CONTRACT_VERSION, samples };
}

/** [MC-7.3] ts ascends; [MC-7.9] the epoch never falls; [MC-7.5] energy falls only with a new epoch. */
function follows(s: SamplePayload, prev: SamplePayload): boolean {
  if (s.ts <= prev.ts) return false;
  const epoch = s.register_epoch ?? 0;
  const prevEpoch = prev.register_epoch ?? 0;
  return epoch >= prevEpoch && (s.energy >= prev.energy || epoch !== prevEpoch);
}

/** [MC-7.4] One sample as SampleSchema returns it, its keys in the schema's order; or null. */
function sampleIfValid(item: unknown): SamplePayload | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
  const r = item as Record<string, unknown>;
  const { ts, energy, active_power, voltage, current, power_factor, apparent_power, reactive_power } = r;
  const { balance, register_epoch } = r;
  if (!isInt(ts) || ts < 0) return null;
  if (!isNumber(energy) || energy < 0) return null;
  if (!isNumber(active_power)) return null;
  if (!isNumber(voltage) || voltage < 0) return null;
  if (!isInt(balance)) return null;
  const s = { ts, energy, active_power, voltage } as SamplePayload;
  if (current !== undefined) {
    if (!isNumber(current) || current < 0) return null;
    s.current = current;
  }
  if (power_factor !== undefined) {
    if (!isNumber(power_factor) || power_factor < -1 || power_factor > 1) return null;
    s.power_factor = power_factor;
  }
  if (apparent_power !== undefined) {
    if (!isNumber(apparent_power) || apparent_power < 0) return null;
    s.apparent_power = apparent_power;
  }
  if (reactive_power !== undefined) {
    if (!isNumber(reactive_power)) return null;
    s.reactive_power = reactive_power;
  }
  s.balance = balance;
  if (register_epoch !== undefined) {
    if (!isInt(register_epoch) || register_epoch < 0) return null;
    s.register_epoch = register_epoch;
  }
  return s;
}
