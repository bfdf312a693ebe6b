// Virtual times as a scenario's reader thinks of them: an offset from the scenario's start written as
// its `at:` is (`18m45s`, `7m30.001s`), with the IST instant beside it, so a failure says when a thing
// happened in the words the file used [SC-2].

import { toIstIso } from '../../time/ist.ts';
import { durationMs } from './schema.ts';

const UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
];

/** ms as a duration a scenario may write: `0s`, `45s`, `18m45s`, `1d2h`, `7m30.001s`, `-5s`. */
export function durationText(ms: number): string {
  if (ms < 0) return `-${durationText(-ms)}`;
  let rest = Math.round(ms);
  let out = '';
  for (const [unit, size] of UNITS) {
    if (rest >= size) {
      out += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  if (rest > 0 || out === '') {
    const s = Math.floor(rest / 1000);
    const frac = rest % 1000;
    out += frac === 0 ? `${s}s` : `${s}.${String(frac).padStart(3, '0').replace(/0+$/, '')}s`;
  }
  return out;
}

/** `18m45s (2026-01-05T00:18:45.000+05:30)`; the instant alone when the start is not known. */
export function whenText(vt: number, start: number | null): string {
  return start === null ? toIstIso(vt) : `${durationText(vt - start)} (${toIstIso(vt)})`;
}

/** An `at:` as an instant: an offset from `start`, or an ISO date-time as written. */
export function atMs(at: string | number, start: number): number {
  if (typeof at === 'string' && at.includes('T')) return Date.parse(at);
  return start + durationMs(at);
}
