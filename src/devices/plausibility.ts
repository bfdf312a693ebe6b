// What the service believes of a meter's message beyond what the codec can check on its own: times
// within a plausible window of the service's clock [MC-3.10], states never older than the one held
// [MC-5.1], and energy that never goes backwards [MC-7.5] nor jumps beyond what a meter can register
// [MC-7.8]. Pure functions of the message, what the twin already holds, and the time; twins.ts counts
// and logs what they refuse.

import type { SamplePayload, StatePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { RefusalReason } from './refusals.ts';

/**
 * [MC-3.10] How far ahead of the service's clock a meter's `ts` may be: clock drift of a meter without
 * network time, not a year-2999 sample that would be "the newest" forever.
 */
export const MAX_FUTURE_SKEW_MS = 10 * 60_000;

/**
 * [MC-3.10] The earliest `ts` the service takes: 2000-01-01T00:00:00Z. Older times come from a meter
 * whose clock was never set (counting from 1970). There is no tighter bound into the past: a meter
 * may upload samples it held for months (MC-7.6), a trace may replay a year long gone, and an old
 * sample can pin nothing (the newest reading and the newest state win).
 */
export const EARLIEST_TS = Date.UTC(2000, 0, 1);

export function tsRefusal(ts: number, now: number): RefusalReason | null {
  if (ts > now + MAX_FUTURE_SKEW_MS) return 'tsInFuture';
  if (ts < EARLIEST_TS) return 'tsTooOld';
  return null;
}

/** [MC-5.1] A state is taken if its time is plausible and not older than the one held (equal is a repeat). */
export function stateRefusal(
  state: StatePayload,
  current: StatePayload | null,
  now: number,
): RefusalReason | null {
  return tsRefusal(state.ts, now) ?? (current !== null && state.ts < current.ts ? 'staleState' : null);
}

export interface SampleVerdicts {
  accepted: SamplePayload[];
  /** The newest sample once the accepted ones are added. */
  newest: SamplePayload | null;
  refused: { sample: SamplePayload; reason: RefusalReason }[];
}

/**
 * Judges each sample of a message on its own (one bad sample does not cost its valid neighbours):
 * its time [MC-3.10], and its energy against the newest sample taken so far [MC-7.5]: a later sample
 * may not have less energy, an earlier one (a resent batch, MC-7.3) may not have more. The codec has
 * already checked the order within the message.
 */
export function judgeSamples(
  samples: readonly SamplePayload[],
  newest: SamplePayload | null,
  now: number,
): SampleVerdicts {
  const accepted: SamplePayload[] = [];
  const refused: SampleVerdicts['refused'] = [];
  let ref = newest;
  for (const sample of samples) {
    const reason = tsRefusal(sample.ts, now) ?? energyRefusal(sample, ref);
    if (reason !== null) {
      refused.push({ sample, reason });
      continue;
    }
    accepted.push(sample);
    if (ref === null || sample.ts >= ref.ts) ref = sample;
  }
  return { accepted, newest: ref, refused };
}

/**
 * [MC-7.8] The most a single-phase meter can register: 100 kW (well above 230 V × 100 A), so energy
 * between two samples rises by at most this × the time between them (plus one register step).
 */
export const MAX_ENERGY_RATE_KW = 100;
const ENERGY_SLACK_KWH = 0.001;

export function energyRefusal(sample: SamplePayload, ref: SamplePayload | null): RefusalReason | null {
  if (ref === null) return null;
  if (sample.ts > ref.ts && sample.energy < ref.energy) return 'energyBackwards';
  if (sample.ts < ref.ts && sample.energy > ref.energy) return 'energyBackwards';
  // [MC-7.8] A jump no meter could make would otherwise pin every honest sample after it [MC-7.5].
  const hours = Math.abs(sample.ts - ref.ts) / 3_600_000;
  if (Math.abs(sample.energy - ref.energy) > MAX_ENERGY_RATE_KW * hours + ENERGY_SLACK_KWH) {
    return 'energyImplausible';
  }
  return null;
}
