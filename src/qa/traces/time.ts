// Trace timestamps: epoch milliseconds, ISO 8601 with an offset, or wall-clock ISO 8601 without one,
// read in the trace's zone (Asia/Kolkata unless the trace says otherwise). Fixed-offset zones are plain
// arithmetic (a year of minutes parses in well under a second); other zones go through luxon.

import { DateTime } from 'luxon';

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const FIXED_ZONES: Record<string, number> = {
  'Asia/Kolkata': 330,
  'Asia/Calcutta': 330,
  UTC: 0,
  'Etc/UTC': 0,
};
/** Before 1973-03-03 in ms, or a plausible time in seconds: a trace of epoch seconds is a mistake. */
const MIN_EPOCH_MS = 100_000_000_000;

export const DEFAULT_ZONE = 'Asia/Kolkata';

export function isKnownZone(zone: string): boolean {
  return zone in FIXED_ZONES || DateTime.now().setZone(zone).isValid;
}

/** Day starts (UTC ms of the wall date) by `YYYY-MM-DD`, for the fast path: a trace repeats its dates. */
const dayCache = new Map<string, number>();

/**
 * The fast path for the commonest spelling, `YYYY-MM-DDTHH:MM:SS` in a fixed-offset zone: no regex, no
 * Date per row. Null when `text` is not exactly that shape (the full parser then decides).
 */
function fastWallTime(text: string, fixedMinutes: number): number | null {
  if (
    text.length !== 19 ||
    text.charCodeAt(10) !== 84 ||
    text.charCodeAt(13) !== 58 ||
    text.charCodeAt(16) !== 58
  )
    return null;
  const day = dayCache.get(text.slice(0, 10));
  if (day === undefined) return null;
  const h = digits2(text, 11);
  const mi = digits2(text, 14);
  const s = digits2(text, 17);
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return null;
  return day + ((h * 60 + mi - fixedMinutes) * 60 + s) * 1000;
}

function digits2(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a < 0 || a > 9 || b < 0 || b > 9 ? -1 : a * 10 + b;
}

/** Milliseconds since the epoch, or an error message saying what is wrong with `value`. */
export function parseTimestamp(value: unknown, zone: string): number | string {
  const fixedZone = FIXED_ZONES[zone];
  if (typeof value === 'string' && fixedZone !== undefined) {
    const fast = fastWallTime(value, fixedZone);
    if (fast !== null) return fast;
  }
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))) {
    const ms = Number(value);
    if (!Number.isSafeInteger(ms) || ms < 0) return `${String(value)} is not an integer number of ms >= 0`;
    if (ms < MIN_EPOCH_MS)
      return `${ms} looks like epoch seconds; a numeric ts is milliseconds since the epoch`;
    return ms;
  }
  if (typeof value !== 'string') return `expected an ISO 8601 time or epoch ms, got ${JSON.stringify(value)}`;
  const m = ISO.exec(value.trim());
  if (!m)
    return `cannot read ${JSON.stringify(value)} as a time (ISO 8601 such as 2007-02-01T00:00:00, or epoch ms)`;
  const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
  const s = Number(m[6] ?? 0);
  const ms = Number((m[7] ?? '0').padEnd(3, '0'));
  const utc = Date.UTC(y!, mo! - 1, d!, h!, mi!, s, ms);
  const back = new Date(utc);
  if (back.getUTCMonth() !== mo! - 1 || back.getUTCDate() !== d! || h! > 23 || mi! > 59 || s > 59)
    return `${JSON.stringify(value)} is not a valid date and time`;
  if (dayCache.size < 100_000) dayCache.set(value.slice(0, 10), Date.UTC(y!, mo! - 1, d!));
  const offset = m[8];
  if (offset !== undefined) return utc - offsetMinutes(offset) * 60_000;
  const fixed = FIXED_ZONES[zone];
  if (fixed !== undefined) return utc - fixed * 60_000;
  const dt = DateTime.fromObject(
    { year: y, month: mo, day: d, hour: h, minute: mi, second: s, millisecond: ms },
    { zone },
  );
  if (!dt.isValid) return `${JSON.stringify(value)} does not exist in ${zone} (${dt.invalidReason})`;
  return dt.toMillis();
}

function offsetMinutes(text: string): number {
  if (text === 'Z') return 0;
  const sign = text.startsWith('-') ? -1 : 1;
  const digits = text.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
}
