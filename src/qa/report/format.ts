// Numbers and times as a person reads them in a report [RP-4]: each value at the resolution its meter
// declared (never float noise such as 58.20826666666667), times in Asia/Kolkata and as an offset
// from the run's start.

import { IST_OFFSET_MS } from '../../time/ist.ts';
import { DEFAULT_STEPS, placesOf as placesOfStep } from '../../units/readable.ts';

/** Places when a meter declared no resolution: meterstack's own steps (MC-4.4), 0.1 W and 1 Wh. */
export const DEFAULT_PLACES = {
  power: placesOfStep(DEFAULT_STEPS.active_power),
  energy: placesOfStep(DEFAULT_STEPS.energy),
} as const;

/**
 * Decimal places of a declared resolution: 0.001 → 3, 1 → 0. A resolution that is not a power of ten
 * from 1 down to 1e-6 (or not a number at all: `info` is the meter's word) gives `fallback`.
 */
export function placesOf(resolution: unknown, fallback: number): number {
  if (typeof resolution !== 'number' || !(resolution > 0) || !Number.isFinite(resolution)) return fallback;
  // The places as units/readable.ts counts them, taken only for a power of ten it names exactly.
  const p = placesOfStep(resolution);
  return p <= 6 && Math.abs(resolution * 10 ** p - 1) < 1e-9 ? p : fallback;
}

/** A value rounded to `places`, as the shortest number that prints so (for the page's data). */
export function atPlaces(value: number, places: number): number {
  return Number(value.toFixed(places));
}

/** A value as text at `places`; an em dash for none. */
export function showValue(value: number | null | undefined, places: number): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(places) : '—';
}

/** `2026-11-22 18:29:05` in IST (the page says the zone once). */
export function istTime(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const d = new Date(ms + IST_OFFSET_MS);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

/** A span as `18m45s`, `6h`, `2d3h`, `0s`, `1.25s` (below a minute, to the ms when not whole). */
export function span(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 60_000) {
    const s = rest / 1000;
    return `${sign}${Number.isInteger(s) ? s : s.toFixed(rest < 10_000 ? 2 : 1)}s`;
  }
  rest = Math.round(rest / 1000);
  const parts: [number, string][] = [
    [Math.floor(rest / 86_400), 'd'],
    [Math.floor(rest / 3600) % 24, 'h'],
    [Math.floor(rest / 60) % 60, 'm'],
    [rest % 60, 's'],
  ];
  return (
    sign +
    parts
      .filter(([n]) => n > 0)
      .map(([n, u]) => `${n}${u}`)
      .join('')
  );
}
