// Asia/Kolkata time. India has used UTC+05:30 all year since 1945 (no DST), so a fixed offset is exact
// and far cheaper on hot paths than a zone database lookup.

export const IST_OFFSET_MS = 19_800_000;
export const DAY_MS = 86_400_000;

const PAD2 = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/** 0000-01-01 and 10000-01-01 UTC: ISO years of four digits lie between. */
const MIN_4_DIGIT_YEAR_MS = -62_167_219_200_000;
const MAX_4_DIGIT_YEAR_MS = 253_402_300_800_000;
/** The IST day the last toIstIso call fell on: most calls of a run fall on the same day. */
let isoDayStart = Number.NaN;
let isoDayPrefix = '';

/**
 * ISO 8601 with milliseconds in +05:30, e.g. 2026-11-22T18:29:00.123+05:30. On every answer's hot path
 * (the envelope's timestamp, each reading's), so one Date per IST day, not per call, and the time of day
 * from tables; the same string as `new Date(ms + IST_OFFSET_MS).toISOString()` cut to milliseconds.
 */
export function toIstIso(ms: number): string {
  const local = Math.trunc(ms + IST_OFFSET_MS); // as Date does
  let sod = local - isoDayStart;
  if (!(sod >= 0 && sod < DAY_MS)) {
    // Years outside 0000..9999 (six-digit ISO years) and what Date refuses: as Date writes them.
    if (!(local >= MIN_4_DIGIT_YEAR_MS && local < MAX_4_DIGIT_YEAR_MS))
      return `${new Date(local).toISOString().slice(0, 23)}+05:30`;
    isoDayStart = local - (((local % DAY_MS) + DAY_MS) % DAY_MS);
    isoDayPrefix = new Date(isoDayStart).toISOString().slice(0, 11);
    sod = local - isoDayStart;
  }
  const s = Math.floor(sod / 1000);
  return `${isoDayPrefix}${PAD2[Math.floor(s / 3600)]}:${PAD2[Math.floor(s / 60) % 60]}:${PAD2[s % 60]}.${PAD3[sod % 1000]}+05:30`;
}

/** ISO 8601 to the second in +05:30, e.g. 2026-11-22T23:59:59+05:30. */
export function toIstIsoSeconds(ms: number): string {
  return `${new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 19)}+05:30`;
}

/**
 * toIstIsoSeconds for many instants in a row (history answers: up to 35,040 per request): one Date per
 * IST day instead of one per call, the time of day from a table. Same output as toIstIsoSeconds.
 */
export function istIsoSecondsFormatter(): (ms: number) => string {
  let dayStart = Number.NaN;
  let prefix = '';
  return (ms) => {
    const local = Math.trunc(ms + IST_OFFSET_MS); // as Date does
    let sod = local - dayStart;
    if (!(sod >= 0 && sod < DAY_MS)) {
      dayStart = local - (((local % DAY_MS) + DAY_MS) % DAY_MS);
      prefix = new Date(dayStart).toISOString().slice(0, 11);
      sod = local - dayStart;
    }
    const s = Math.floor(sod / 1000);
    return `${prefix}${PAD2[Math.floor(s / 3600)]}:${PAD2[Math.floor(s / 60) % 60]}:${PAD2[s % 60]}+05:30`;
  };
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Start of an Asia/Kolkata calendar day, from a strict zero-padded YYYY-MM-DD.
 * Returns null for anything else, including dates that do not exist (2026-02-30).
 */
export function istDayStart(date: string): number | null {
  const m = DATE_RE.exec(date);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // setUTCFullYear, not Date.UTC, which takes years 0-99 as 1900-1999 and would call 0099-01-01 no date.
  const day = new Date(0);
  day.setUTCFullYear(y, mo - 1, d);
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return null;
  return day.getTime() - IST_OFFSET_MS;
}

/** The Asia/Kolkata calendar date (YYYY-MM-DD) of an instant. */
export function istDate(ms: number): string {
  return new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 10);
}
