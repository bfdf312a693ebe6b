// The checks and arithmetic every trace format shares: time order, a consistent energy source,
// cumulative energy that never falls [MC-7.5], and energy per sample, exact in mW·ms. A power-only
// trace is integrated: a sample's power stands for the period since the previous sample (the first
// sample's for the usual period), so a trace of one-minute averages sums to kW × 1/60 h per row.

import { MWMS_PER_KWH } from '../../../simulator/meter/types.ts';
import {
  type Trace,
  type TraceEntry,
  TraceError,
  type TraceEvent,
  type TraceMeta,
  type TraceSample,
} from './types.ts';

/**
 * A sample as read, before its energy is known: `energy` is filled in by assemble (this same object
 * becomes the TraceSample, so a year of samples is not copied). `readings.active_power` is set from
 * `powerMw`.
 */
export interface RawSample extends TraceSample {
  /** Cumulative energy register, mW·ms. */
  register?: bigint;
  /** Active power, integer mW. */
  powerMw?: number;
}

/** A new raw sample (energy and active power still 0). */
export function rawSample(line: number, ts: number): RawSample {
  return { kind: 'sample', ts, line, energy: 0n, readings: { active_power: 0 } };
}

export interface RawEvent {
  kind: 'event';
  line: number;
  ts: number;
  event: TraceEvent;
}

export type RawEntry = RawSample | RawEvent;

const FULL_FIELDS = ['current', 'power_factor', 'apparent_power', 'reactive_power'] as const;

function kwh(e: bigint): string {
  return `${Number(e) / Number(MWMS_PER_KWH)} kWh`;
}

export function assemble(
  file: string,
  format: Trace['format'],
  meta: TraceMeta,
  raws: RawEntry[],
  skippedLines = 0,
): Trace {
  const fail = (line: number | null, field: string | null, msg: string) =>
    new TraceError(file, line, field, msg);
  const samples = raws.filter((r): r is RawSample => r.kind === 'sample');
  const first = samples[0];
  if (!first) throw fail(null, null, 'no samples: a trace needs at least one reading');
  const cumulative = first.register !== undefined;
  let prev: RawSample | null = null;
  let lastTs = Number.NEGATIVE_INFINITY;
  let lastLine = 0;
  for (const r of raws) {
    if (r.ts < lastTs || (r.kind === 'sample' && prev && r.ts === prev.ts)) {
      const what = r.ts === lastTs ? 'is the same as' : 'is before';
      throw fail(
        r.line,
        'ts',
        `${new Date(r.ts).toISOString()} ${what} line ${lastLine}'s; a trace is in time order`,
      );
    }
    lastTs = r.ts;
    lastLine = r.line;
    if (r.kind !== 'sample') continue;
    if (cumulative && r.register === undefined)
      throw fail(r.line, 'energy', `missing; line ${first.line} has energy, so every sample needs it`);
    if (!cumulative && r.powerMw === undefined)
      throw fail(r.line, 'active_power', 'missing; a sample needs energy (kWh) or active power (W)');
    if (cumulative && prev && r.register! < prev.register!) {
      throw fail(
        r.line,
        'energy',
        `${kwh(r.register!)} is less than ${kwh(prev.register!)} at line ${prev.line}; cumulative energy never decreases [MC-7.5]`,
      );
    }
    prev = r;
  }

  const periodMs = medianGap(samples);
  const entries: TraceEntry[] = [];
  let before: RawSample | null = null;
  for (const r of raws) {
    if (r.kind === 'event') {
      entries.push(r);
      continue;
    }
    r.energy = cumulative
      ? r.register! - (before?.register ?? first.register!)
      : BigInt(r.powerMw!) * BigInt(before ? r.ts - before.ts : periodMs);
    if (r.energy < 0n)
      throw fail(r.line, 'active_power', 'negative power: a single-phase meter here only imports');
    if (r.powerMw !== undefined) r.readings.active_power = r.powerMw / 1000;
    entries.push(r);
    before = r;
  }
  const full = samples.some((s) => FULL_FIELDS.some((f) => s.readings[f] !== undefined));
  return {
    file,
    format,
    meta,
    entries,
    sampleCount: samples.length,
    firstTs: raws[0]!.ts,
    lastTs,
    periodMs,
    openingEnergy: cumulative ? first.register! : 0n,
    cumulative,
    model: meta.model ?? (full ? 'full' : 'basic'),
    skippedLines,
  };
}

/** The median gap between consecutive samples; 60 s for a single sample. */
function medianGap(samples: RawSample[]): number {
  if (samples.length < 2) return 60_000;
  const gaps: number[] = [];
  // A few thousand gaps say what the period is; no need to sort a year of them.
  const stride = Math.max(1, Math.floor(samples.length / 4096));
  for (let i = stride; i < samples.length; i += stride) gaps.push(samples[i]!.ts - samples[i - 1]!.ts);
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor((gaps.length - 1) / 2)]!;
}
