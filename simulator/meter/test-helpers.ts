// Small helpers shared by this folder's tests: make a meter, send it events, pick effects apart.

import { type CreateMeterOptions, createMeter } from './create.ts';
import { step } from './step.ts';
import {
  type CommandReply,
  type MeterCommand,
  type MeterEffect,
  type MeterState,
  MWMS_PER_KWH,
  type ReportedState,
  type Sample,
  type StepResult,
  UNITS_PER_PAISE,
} from './types.ts';

/** 2024-01-01T00:00:00+05:30: a midnight in IST, and an epoch multiple of 30 minutes (not of an hour). */
export const T0 = Date.UTC(2023, 11, 31, 18, 30);
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export function meter(opts: Partial<CreateMeterOptions> = {}, now = T0): MeterState {
  return createMeter({ deviceId: 'm-1', ...opts }, now);
}

let nextId = 0;

/** Sends one command with a fresh id (or `id`) and returns the step result plus its reply. */
export function send(
  state: MeterState,
  command: MeterCommand,
  now: number,
  id = `cmd-${++nextId}`,
): StepResult & { reply: CommandReply } {
  const r = step(state, { type: 'command', id, command }, now);
  const replies = r.effects.filter((e) => e.type === 'reply');
  if (replies.length !== 1) throw new Error(`expected one reply, got ${replies.length}`);
  return { ...r, reply: replies[0]!.reply };
}

/** Applies commands in order at the same instant, returning the final state. */
export function sendAll(state: MeterState, commands: MeterCommand[], now: number): MeterState {
  return commands.reduce((s, c) => send(s, c, now).state, state);
}

export function advance(state: MeterState, now: number): StepResult {
  return step(state, { type: 'advance' }, now);
}

export function samples(effects: MeterEffect[]): Sample[] {
  return effects.flatMap((e) => (e.type === 'telemetry' ? [e.sample] : []));
}

export function states(effects: MeterEffect[]): ReportedState[] {
  return effects.flatMap((e) => (e.type === 'state' ? [e.state] : []));
}

export function paise(n: number | bigint): bigint {
  return BigInt(n) * UNITS_PER_PAISE;
}

export function kwh(n: number | bigint): bigint {
  return BigInt(n) * MWMS_PER_KWH;
}
