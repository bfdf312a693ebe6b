// JSON Lines traces: one JSON object per line. A line is, by its shape:
//   {"trace":1, "zone":…, "mode":…, …}            the header (first line only; optional)
//   {"ts":…, "energy":…, "active_power":…, …}      a sample, fields and units of the MQTT contract [MC-7.4]
//   {"v":1, "samples":[…]}                         a whole telemetry payload [MC-7.2]: its samples
//   {"ts":…, "event":"relay", "on":false}          an event
// and may say so with "type": "header" | "sample" | "telemetry" | "event". A line with any other
// "type" is skipped (a recorder may interleave its own lines); fields named x_… are ignored. Anything
// else unknown is an error naming the line and field.

import { MWMS_PER_KWH } from '../../../simulator/meter/types.ts';
import { assemble, type RawEntry, type RawSample, rawSample } from './assemble.ts';
import {
  isRecordingLine,
  orderRecording,
  type RecordingState,
  readRecordingLine,
} from './bridge-recording.ts';
import { numberText, scaleDecimal, scaleToInt } from './decimal.ts';
import { eventFromObject } from './events.ts';
import { META_KEYS, readMeta } from './meta.ts';
import { DEFAULT_ZONE, parseTimestamp } from './time.ts';
import { type Trace, TraceError, type TraceMeta } from './types.ts';

const READINGS = ['voltage', 'current', 'power_factor', 'apparent_power', 'reactive_power'] as const;
/** Sample fields beyond ts; `balance` is what the recording meter reported, read and not used. */
const SAMPLE_FIELDS = new Set(['ts', 'type', 'v', 'energy', 'active_power', 'balance', ...READINGS]);
const LINE_TYPES = new Set(['header', 'sample', 'telemetry', 'event']);

export function readJsonlTrace(file: string, text: string): Trace {
  const lines = text.split(/\r?\n/);
  let meta: TraceMeta | null = null;
  const raws: RawEntry[] = [];
  let skipped = 0;
  let recording: RecordingState | null = null;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!.trim();
    if (line === '') continue;
    const lineNo = n + 1;
    const fail = (field: string | null, msg: string) => new TraceError(file, lineNo, field, msg);
    let o: unknown;
    try {
      o = JSON.parse(line);
    } catch (err) {
      throw fail(null, `not JSON: ${(err as Error).message}`);
    }
    if (typeof o !== 'object' || o === null || Array.isArray(o))
      throw fail(null, 'each line must be a JSON object');
    const obj = o as Record<string, unknown>;
    if (isRecordingLine(obj)) {
      recording ??= {};
      const r = readRecordingLine(obj, recording);
      if (r.kind === 'skip') skipped++;
      else if (r.kind === 'events')
        for (const e of r.events) raws.push({ kind: 'event', line: lineNo, ...e });
      else
        for (const [k, s] of r.samples.entries())
          raws.push(sampleFrom(s, lineNo, `payload.samples.${k}.`, DEFAULT_ZONE, fail));
      continue;
    }
    const type = obj['type'];
    if (type !== undefined && (typeof type !== 'string' || !LINE_TYPES.has(type))) {
      skipped++;
      continue;
    }
    const zone = meta?.zone ?? readMeta({}, () => new Error()).zone;
    if (type === 'header' || 'trace' in obj) {
      if (meta !== null || raws.length > 0) throw fail('trace', 'the header must be the first line');
      for (const k of Object.keys(obj))
        if (
          k !== 'trace' &&
          k !== 'type' &&
          !k.startsWith('x_') &&
          !(META_KEYS as readonly string[]).includes(k)
        )
          throw fail(k, `unknown header field; known: trace, ${META_KEYS.join(', ')}`);
      if (obj['trace'] !== 1) throw fail('trace', 'this reader knows trace format 1');
      meta = readMeta(obj, fail);
      continue;
    }
    meta ??= readMeta({}, fail);
    if (type === 'telemetry' || 'samples' in obj) {
      const list = obj['samples'];
      if (!Array.isArray(list) || list.length === 0) throw fail('samples', 'must be a non-empty array');
      list.forEach((s, k) => {
        raws.push(sampleFrom(s, lineNo, `samples.${k}.`, zone, fail));
      });
      continue;
    }
    if (type === 'event' || 'event' in obj) {
      const ts = parseTimestamp(obj['ts'], zone);
      if (typeof ts === 'string') throw fail('ts', ts);
      const e = eventFromObject(obj);
      if (!e.ok) throw fail(e.field, e.msg);
      raws.push({ kind: 'event', line: lineNo, ts, event: e.event });
      continue;
    }
    raws.push(sampleFrom(obj, lineNo, '', zone, fail));
  }
  const m = meta ?? readMeta({}, (_f, msg) => new Error(msg));
  if (recording?.deviceId && !m.deviceId) m.deviceId = recording.deviceId;
  // A recording opens as its meter did (a header line, if any, still wins).
  for (const [k, v] of Object.entries(recording?.opening ?? {}))
    if (m[k as keyof TraceMeta] === undefined) Object.assign(m, { [k]: v });
  return assemble(file, 'jsonl', m, recording ? orderRecording(raws) : raws, skipped);
}

function sampleFrom(
  value: unknown,
  line: number,
  prefix: string,
  zone: string,
  fail: (field: string | null, msg: string) => TraceError,
): RawSample {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw fail(prefix.slice(0, -1) || null, 'a sample must be a JSON object');
  const o = value as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!SAMPLE_FIELDS.has(k) && !k.startsWith('x_'))
      throw fail(
        `${prefix}${k}`,
        `unknown field; a sample has ts, energy, active_power, ${READINGS.join(', ')}, balance`,
      );
  }
  const ts = parseTimestamp(o['ts'], zone);
  if (typeof ts === 'string') throw fail(`${prefix}ts`, ts);
  const sample = rawSample(line, ts);
  if (o['energy'] !== undefined) {
    const text = numberText(o['energy']);
    const e = text === null ? null : scaleDecimal(text, MWMS_PER_KWH);
    if (e === null || e < 0n)
      throw fail(`${prefix}energy`, `must be a number of kWh >= 0, got ${JSON.stringify(o['energy'])}`);
    sample.register = e;
  }
  if (o['active_power'] !== undefined) {
    const text = numberText(o['active_power']);
    const p = text === null ? null : scaleToInt(text, 3);
    if (p === null)
      throw fail(`${prefix}active_power`, `must be a number of W, got ${JSON.stringify(o['active_power'])}`);
    sample.powerMw = p;
  }
  for (const f of READINGS) {
    const v = o[f];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw fail(`${prefix}${f}`, `must be a number, got ${JSON.stringify(v)}`);
    sample.readings[f] = v;
  }
  if (sample.register === undefined && sample.powerMw === undefined)
    throw fail(prefix ? prefix.slice(0, -1) : null, 'a sample needs energy (kWh) or active_power (W)');
  return sample;
}
