// [MC-4.4] [MC-7.7] Samples at their resolution as the twins take them (spec-decisions 181): each
// value rounded to the step its meter declared for the property in `info`, or, where it declared none,
// to the step meterstack's own meters declare (energy 0.001 kWh, power 0.1 W, voltage 0.01 V, ...:
// what single-phase meters' registers show). A meter that sends `energy: 0.0013333333333333333`
// (binary-float noise, a C or JavaScript sender dividing) is stored and shown as 0.001. A meter that
// keeps finer registers says so with `resolution`; an honest meter's values come through unchanged.

import type { InfoPayload, SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import { DEFAULT_STEPS } from '../units/readable.ts';

/** The step of each value a sample may carry, when its meter declared none (one list: units/). */
export const DEFAULT_RESOLUTIONS = DEFAULT_STEPS;

type Reading = keyof typeof DEFAULT_RESOLUTIONS;
const READINGS = Object.keys(DEFAULT_RESOLUTIONS) as Reading[];
export type Resolutions = Readonly<Record<Reading, number>>;

/** Each info's steps, worked out once (telemetry asks for them with every message). */
const byInfo = new WeakMap<object, Resolutions>();

/** The steps of a meter: what its `info` declared, the defaults for the rest. */
export function resolutionsOf(info: Pick<InfoPayload, 'properties'> | null | undefined): Resolutions {
  if (!info) return DEFAULT_RESOLUTIONS;
  let steps = byInfo.get(info);
  if (steps === undefined) {
    steps = declaredSteps(info);
    byInfo.set(info, steps);
  }
  return steps;
}

function declaredSteps(info: Pick<InfoPayload, 'properties'>): Resolutions {
  const declared = info?.properties?.filter((p) => p.resolution !== undefined) ?? [];
  if (declared.length === 0) return DEFAULT_RESOLUTIONS;
  const out: Record<Reading, number> = { ...DEFAULT_RESOLUTIONS };
  for (const p of declared) if (p.property_id in out) out[p.property_id as Reading] = p.resolution!;
  return out;
}

const places = new Map<number, number>();

/** Decimal places of a step as written: 0.001 → 3, 1e-7 → 7, 0.25 → 2, 5 → 0. */
function placesOf(step: number): number {
  let n = places.get(step);
  if (n === undefined) {
    const [mantissa = '', exponent = '0'] = String(step).split('e');
    n = Math.max(0, Math.min(20, (mantissa.split('.')[1] ?? '').length - Number(exponent)));
    if (places.size < 1000) places.set(step, n); // steps are few; a bound all the same
  }
  return n;
}

/** 10^k when `step` is exactly 10^-k (0.001, 0.1, 1): the steps meters declare; else 0. */
const powersOfTen = new Map<number, number>();

function scaleOf(step: number): number {
  let scale = powersOfTen.get(step);
  if (scale === undefined) {
    const k = placesOf(step);
    scale = k <= 15 && 10 ** -k === step ? 10 ** k : 0;
    if (powersOfTen.size < 1000) powersOfTen.set(step, scale);
  }
  return scale;
}

/** `x` as the nearest whole number of `step`s, written as that decimal; never -0. */
export function atStep(x: number, step: number): number {
  // A power-of-ten step, the common case on every sample: an integer over an exact power of ten is
  // the double nearest that decimal, as parsing it would give, without a string (toFixed) per value.
  const scale = scaleOf(step);
  const v =
    scale > 0 ? Math.round(x * scale) / scale : Number((Math.round(x / step) * step).toFixed(placesOf(step)));
  return v === 0 ? 0 : v;
}

/** The samples with every reading at its step; the same array when nothing needed rounding. */
export function samplesAtResolution(samples: SamplePayload[], steps: Resolutions): SamplePayload[] {
  let out: SamplePayload[] | null = null;
  samples.forEach((s, i) => {
    let copy: SamplePayload | null = null;
    for (const k of READINGS) {
      const v = s[k];
      if (v === undefined) continue;
      const r = atStep(v, steps[k]);
      if (r === v) continue;
      copy ??= { ...s };
      copy[k] = r;
    }
    if (copy) {
      out ??= samples.slice();
      out[i] = copy;
    }
  });
  return out ?? samples;
}

/**
 * [MC-4.4] A `read` reply's readings (MC-8.6, the v2 API's live metrics) at their steps, as a sample's;
 * any other reply as it came. Only a read reply carries `readings`, so the command need not be known.
 */
export function replyAtResolution<R extends { data?: unknown }>(reply: R, steps: Resolutions): R {
  const data = reply.data;
  if (typeof data !== 'object' || data === null || !('readings' in data)) return reply;
  const readings = data.readings;
  if (typeof readings !== 'object' || readings === null) return reply;
  let copy: Record<string, unknown> | null = null;
  for (const k of READINGS) {
    const v = (readings as Record<string, unknown>)[k];
    if (typeof v !== 'number' || !Number.isFinite(v)) continue; // the decoder refuses it later
    const r = atStep(v, steps[k]);
    if (r === v) continue;
    copy ??= { ...readings };
    copy[k] = r;
  }
  return copy ? { ...reply, data: { ...data, readings: copy } } : reply;
}
