// Times in the twins' log lines as a person reads them: IST dates (2026-01-05T00:07:30.001+05:30), not
// epoch milliseconds. A meter's `ts` may be any integer up to 2^53 (MC-3.7), beyond what a Date can
// hold: such a time is written as the number it was, so a hostile sample cannot break its own refusal.

import { toIstIso } from '../time/ist.ts';

/** ±8.64e15 ms is what a Date holds; IST adds its offset. */
const DATE_LIMIT = 8.64e15 - 86_400_000;

export function logTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= DATE_LIMIT ? toIstIso(ms) : `${ms} ms`;
}
