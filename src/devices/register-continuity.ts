// [MC-7.9] [MC-7.10] [MC-7.11] One continuous energy series per device, whatever its meter's register
// does: a register reset or a new meter (a higher `register_epoch`) and a rollover (at the
// `register_max_kwh` its info declared) each raise an offset the service adds to every later register
// value, so stored `energy` never goes backwards and consumption (last − first) stays right. Pure: the
// samples, what is held, and the time in; verdicts, the new continuity and events out.

import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { EventData } from '../events/schemas.ts';
import { energyRefusal, type SampleVerdicts, tsRefusal } from './plausibility.ts';

/** The newest register epoch taken and the kWh added to every register value of it. */
export interface RegisterContinuity {
  epoch: number;
  offsetKwh: number;
}

/** A meter never reset: its register is the series. */
export const FIRST_REGISTER: RegisterContinuity = { epoch: 0, offsetKwh: 0 };

/**
 * [MC-7.10] A fall at the same epoch is a rollover when the newest value held was within this fraction
 * of the maximum below it and the new value is below this fraction of it.
 */
export const ROLLOVER_BAND = 0.1;

export type RegisterEvent =
  | { type: 'meter.register_reset'; data: EventData<'meter.register_reset'>; ts: number }
  | { type: 'meter.register_rollover'; data: EventData<'meter.register_rollover'>; ts: number };

export interface JoinedVerdicts extends SampleVerdicts {
  /** The continuity once the accepted samples are taken (the held object itself when unchanged). */
  register: RegisterContinuity;
  events: RegisterEvent[];
}

/**
 * Whether a message needs joining at all. The common case (a meter never reset, no rollover declared)
 * does not, and costs one look at each sample.
 */
export function needsJoin(
  samples: readonly SamplePayload[],
  held: RegisterContinuity,
  maxKwh: number | undefined,
): boolean {
  if (held !== FIRST_REGISTER && (held.epoch !== 0 || held.offsetKwh !== 0)) return true;
  if (maxKwh !== undefined) return true;
  for (const s of samples) if (s.register_epoch !== undefined && s.register_epoch !== 0) return true;
  return false;
}

/** Register plus offset, to the µWh: the offset's binary noise never shows (10.02 + 5.001 = 15.021). */
export function plus(kwh: number, offset: number): number {
  return offset === 0 ? kwh : Math.round((kwh + offset) * 1e6) / 1e6;
}

type Join = { ok: false } | { ok: true; energy: number; register: RegisterContinuity; event?: RegisterEvent };

/** One sample against the continuity and the newest (continuous) sample taken so far. */
export function joinSample(
  sample: SamplePayload,
  reg: RegisterContinuity,
  newest: SamplePayload | null,
  maxKwh: number | undefined,
): Join {
  const epoch = sample.register_epoch ?? 0;
  // [MC-7.9] A meter cannot forge its way back to a lower offset; a resent batch of an older register
  // is refused too (its values would need the offset it had then).
  if (epoch < reg.epoch) return { ok: false };
  if (epoch > reg.epoch) {
    // A new register cannot have read before the newest value of the old one.
    if (newest !== null && sample.ts <= newest.ts) return { ok: false };
    // What flowed between the old register's last sample and the reset is unknown: not invented.
    const offset = newest?.energy ?? reg.offsetKwh;
    const register = { epoch, offsetKwh: offset };
    const last = plus(offset, -reg.offsetKwh);
    const data = { epoch, offset_kwh: offset, last_kwh: last };
    const event =
      newest === null ? undefined : { type: 'meter.register_reset' as const, data, ts: sample.ts };
    return { ok: true, energy: plus(sample.energy, offset), register, event };
  }
  if (maxKwh !== undefined && newest !== null && sample.ts > newest.ts) {
    const last = plus(newest.energy, -reg.offsetKwh);
    const rolled =
      sample.energy < last && last >= (1 - ROLLOVER_BAND) * maxKwh && sample.energy < ROLLOVER_BAND * maxKwh;
    if (rolled) {
      const offset = plus(reg.offsetKwh, maxKwh);
      const data = { epoch, offset_kwh: offset, max_kwh: maxKwh, last_kwh: last };
      return {
        ok: true,
        energy: plus(sample.energy, offset),
        register: { epoch, offsetKwh: offset },
        event: { type: 'meter.register_rollover', data, ts: sample.ts },
      };
    }
  }
  return { ok: true, energy: plus(sample.energy, reg.offsetKwh), register: reg };
}

/**
 * judgeSamples (plausibility.ts) on the joined series: a register value at or above the declared
 * maximum is refused [MC-7.12]; each other sample is first joined [MC-7.9] [MC-7.10],
 * then judged as continuous energy [MC-3.10] [MC-7.5] [MC-7.8]; a refused sample changes nothing.
 * Accepted samples carry the continuous energy.
 */
export function judgeJoined(
  samples: readonly SamplePayload[],
  newest: SamplePayload | null,
  held: RegisterContinuity,
  maxKwh: number | undefined,
  now: number,
): JoinedVerdicts {
  const accepted: SamplePayload[] = [];
  const refused: JoinedVerdicts['refused'] = [];
  const events: RegisterEvent[] = [];
  let reg = held;
  let ref = newest;
  for (const sample of samples) {
    // [MC-7.12] A register that counts modulo its maximum never reads it: the first sample too.
    if (maxKwh !== undefined && sample.energy >= maxKwh) {
      refused.push({ sample, reason: 'energyImplausible' });
      continue;
    }
    const j = joinSample(sample, reg, ref, maxKwh);
    if (!j.ok) {
      refused.push({ sample, reason: 'registerEpoch' });
      continue;
    }
    const joined = j.energy === sample.energy ? sample : { ...sample, energy: j.energy };
    const reason = tsRefusal(sample.ts, now) ?? energyRefusal(joined, ref);
    if (reason !== null) {
      refused.push({ sample, reason });
      continue;
    }
    accepted.push(joined);
    reg = j.register;
    if (j.event) events.push(j.event);
    if (ref === null || joined.ts >= ref.ts) ref = joined;
  }
  return { accepted, newest: ref, refused, register: reg, events };
}
