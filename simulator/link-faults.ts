// Link and delivery faults (issue 12 §1): what a meter's connection does to its replies, its telemetry
// and its presence on the broker. Pure decisions of (the meter's faults, what is decided about, the
// virtual time): every random choice is keyed by a command id or a sample ts (faults/chance.ts), so the
// same seed drops, delays and duplicates the same items however the run is scheduled. The wall-clock
// side (timers, sockets) is link-session.ts.

import type { CommandReply, Sample } from '../firmware-protocol/mqtt/vocabulary.ts';
import { faultChance, faultUnit } from './meter/faults/chance.ts';
import { activeFault, type Fault, type FaultOf } from './meter/faults/types.ts';

/** What becomes of one reply: published (after delayMs wall ms), not published, or garbled. */
export type ReplyFate = { kind: 'send'; delayMs: number } | { kind: 'drop' } | { kind: 'malformed' };

const SEND_NOW: ReplyFate = { kind: 'send', delayMs: 0 };

export function replyFate(faults: readonly Fault[], commandId: string, t: number): ReplyFate {
  if (faults.length === 0) return SEND_NOW;
  const drop = activeFault(faults, 'reply_drop', t);
  if (drop && faultChance(drop, commandId, drop.params.probability)) return { kind: 'drop' };
  const bad = activeFault(faults, 'malformed_reply', t);
  if (bad && faultChance(bad, commandId, bad.params.probability)) return { kind: 'malformed' };
  const delay = activeFault(faults, 'reply_delay', t);
  return delay ? { kind: 'send', delayMs: replyDelayMs(delay, commandId) } : SEND_NOW;
}

/** A fixed `delay_ms`, or uniform in [min_ms, max_ms] drawn from the command id (whole wall ms). */
export function replyDelayMs(fault: FaultOf<'reply_delay'>, commandId: string): number {
  const { delay_ms, min_ms, max_ms } = fault.params;
  if (delay_ms !== undefined) return delay_ms;
  const min = min_ms ?? 0;
  const max = max_ms ?? min;
  return Math.round(min + faultUnit(fault, commandId) * (max - min));
}

/**
 * The reply that replaces a garbled one: a reply cut off in the middle, so no codec can read it and the
 * service drops it whole [MC-9.3] (its command then times out).
 */
export function malformedReply(commandId: string): string {
  return `{"v":1,"id":${JSON.stringify(commandId)},"ok":tr`;
}

/**
 * What a meter does with a command before applying it: `ignore` it (silence: the application is
 * hung), refuse it `busy` [MC-8.7] without applying it, or `apply` it.
 */
export type CommandGate = { kind: 'apply' } | { kind: 'ignore' } | { kind: 'busy'; reply: CommandReply };

const APPLY: CommandGate = { kind: 'apply' };

export const BUSY_REPLY: CommandReply = {
  ok: false,
  error: { code: 'busy', message: 'meter busy (fault), try again later' },
};

export function commandGate(faults: readonly Fault[], commandId: string, t: number): CommandGate {
  if (faults.length === 0) return APPLY;
  if (isSilent(faults, t)) return { kind: 'ignore' };
  const busy = activeFault(faults, 'busy', t);
  if (busy && faultChance(busy, commandId, busy.params.probability))
    return { kind: 'busy', reply: BUSY_REPLY };
  return APPLY;
}

/** Connected and answering pings, but publishing nothing (a stale meter: no will fires). */
export function isSilent(faults: readonly Fault[], t: number): boolean {
  return activeFault(faults, 'silence', t) !== undefined;
}

/**
 * The link is held down: no supply (power_outage), or an off window of flapping. The meter drops its
 * connection abruptly, so the broker fires its will, and reconnects when this ends.
 */
export function linkHeldDown(faults: readonly Fault[], t: number): boolean {
  if (faults.length === 0) return false;
  // The pure meter's side of an outage is H1's powered(state, t); the link only needs "is there one".
  if (activeFault(faults, 'power_outage', t)) return true;
  const flap = activeFault(faults, 'flapping', t);
  return flap !== undefined && flappingOff(flap, t);
}

/** In an off window: each cycle is online_s up, then offline_s down, from the fault's start (virtual). */
export function flappingOff(fault: FaultOf<'flapping'>, t: number): boolean {
  const on = fault.params.online_s * 1000;
  const cycle = on + fault.params.offline_s * 1000;
  return cycle > 0 && (t - fault.from) % cycle >= on;
}

/** Samples the link holds back: a backlog (backlog_burst) and one sample sent late (out_of_order). */
export interface TelemetryHold {
  backlog: Sample[];
  late: Sample | null;
}

export function emptyHold(): TelemetryHold {
  return { backlog: [], late: null };
}

/** Chance streams, so two faults with the same seed still decide independently. */
const DUPLICATE_STREAM = 1;
const LATE_STREAM = 2;

/**
 * One new sample through the telemetry faults, each judged at the sample's own time: held in the backlog
 * while backlog_burst is active; sent twice (duplicate_samples); held and sent after the next one
 * (out_of_order). Returns what to send now, in order; updates `hold`.
 */
export function shapeSample(hold: TelemetryHold, faults: readonly Fault[], sample: Sample): Sample[] {
  const t = sample.ts;
  if (activeFault(faults, 'backlog_burst', t)) {
    hold.backlog.push(sample);
    return [];
  }
  const out = hold.backlog.length > 0 ? hold.backlog.splice(0) : [];
  const dup = activeFault(faults, 'duplicate_samples', t);
  const twice = dup !== undefined && faultChance(dup, t, dup.params.probability, DUPLICATE_STREAM);
  if (hold.late !== null) {
    out.push(sample);
    if (twice) out.push(sample);
    out.push(hold.late);
    hold.late = null;
    return out;
  }
  const ooo = activeFault(faults, 'out_of_order', t);
  if (ooo && faultChance(ooo, t, ooo.params.probability, LATE_STREAM)) {
    hold.late = sample;
    return out;
  }
  out.push(sample);
  if (twice) out.push(sample);
  return out;
}

/** What the hold lets go at t because its fault ended (or was cleared): the backlog burst, the late sample. */
export function releaseHeld(hold: TelemetryHold, faults: readonly Fault[], t: number): Sample[] {
  const out: Sample[] = [];
  if (hold.backlog.length > 0 && !activeFault(faults, 'backlog_burst', t))
    out.push(...hold.backlog.splice(0));
  if (hold.late !== null && !activeFault(faults, 'out_of_order', t)) {
    out.push(hold.late);
    hold.late = null;
  }
  return out;
}

/** Holding anything: the link must keep being evaluated even once the faults are gone. */
export function holding(hold: TelemetryHold): boolean {
  return hold.backlog.length > 0 || hold.late !== null;
}
