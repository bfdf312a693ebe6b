// COSEM date-time: 12 bytes, usually carried as an octet-string (the Clock's time, profile timestamps,
// range bounds) [AX-5]. Fields that say "not specified" are null here.

import { Reader, Writer } from './axdr.ts';
import { attempt, fail, type Result } from './errors.ts';

export interface DateTime {
  year: number | null;
  /** 1–12; 0xFD end and 0xFE start of daylight saving time are kept as those numbers [AX-5.2]. */
  month: number | null;
  /** 1–31; 0xFD second-last and 0xFE last day of the month [AX-5.2]. */
  day: number | null;
  /** 1 = Monday … 7 = Sunday. */
  dayOfWeek: number | null;
  hour: number | null;
  minute: number | null;
  second: number | null;
  hundredths: number | null;
  /** Minutes, −720…720: UTC = local time + deviation [AX-5.4]. */
  deviation: number | null;
  /** Clock status bits [AX-5.3]; null when 0xFF (not specified). */
  status: number | null;
}

/** [AX-5.3] Clock status bits. */
export const CLOCK_STATUS = {
  invalid: 0x01,
  doubtful: 0x02,
  differentBase: 0x04,
  invalidStatus: 0x08,
  daylightSaving: 0x80,
} as const;

const UNSPECIFIED_DEVIATION = -0x8000;

type Field = Exclude<keyof DateTime, 'year' | 'deviation' | 'status'>;
/** [AX-5.2] Allowed values of each one-byte field besides 0xFF (not specified). */
const FIELDS: readonly [Field, number, number, readonly number[]][] = [
  ['month', 1, 12, [0xfd, 0xfe]],
  ['day', 1, 31, [0xfd, 0xfe]],
  ['dayOfWeek', 1, 7, []],
  ['hour', 0, 23, []],
  ['minute', 0, 59, []],
  ['second', 0, 59, []],
  ['hundredths', 0, 99, []],
];

function allowed(v: number, lo: number, hi: number, extra: readonly number[]): boolean {
  return (v >= lo && v <= hi) || extra.includes(v);
}

/** Reads the 12 bytes of a date-time. Throws DecodeFailure. */
export function readDateTime(r: Reader): DateTime {
  const at = r.offset;
  r.need(12, 'date-time');
  const year = r.u16();
  const dt: DateTime = {
    year: year === 0xffff ? null : year,
    month: null,
    day: null,
    dayOfWeek: null,
    hour: null,
    minute: null,
    second: null,
    hundredths: null,
    deviation: null,
    status: null,
  };
  for (const [name, lo, hi, extra] of FIELDS) {
    const v = r.u8(name);
    if (v === 0xff) continue;
    if (!allowed(v, lo, hi, extra)) fail('bad_value', 'AX-5.2', `date-time ${name} ${v}`, r.offset - 1);
    dt[name] = v;
  }
  const dev = r.i16();
  if (dev !== UNSPECIFIED_DEVIATION) {
    if (dev < -720 || dev > 720) fail('bad_value', 'AX-5.4', `date-time deviation ${dev}`, at + 9);
    dt.deviation = dev;
  }
  const status = r.u8();
  dt.status = status === 0xff ? null : status;
  return dt;
}

export function writeDateTime(w: Writer, dt: DateTime): void {
  const year = dt.year ?? 0xffff;
  if (!Number.isInteger(year) || year < 0 || year > 0xffff) throw new RangeError(`year ${dt.year} [AX-5.2]`);
  w.u16(year);
  for (const [name, lo, hi, extra] of FIELDS) {
    const v = dt[name];
    if (v !== null && !allowed(v, lo, hi, extra)) throw new RangeError(`date-time ${name} ${v} [AX-5.2]`);
    w.u8(v ?? 0xff);
  }
  const dev = dt.deviation;
  if (dev !== null && (!Number.isInteger(dev) || dev < -720 || dev > 720)) {
    throw new RangeError(`deviation ${dev} [AX-5.4]`);
  }
  w.i16(dev ?? UNSPECIFIED_DEVIATION);
  const status = dt.status ?? 0xff;
  if (!Number.isInteger(status) || status < 0 || status > 0xff) throw new RangeError(`status ${status}`);
  w.u8(status);
}

/** [AX-5.1] The 12 bytes of a date-time, as the value of an octet-string. */
export function encodeDateTime(dt: DateTime): Uint8Array {
  const w = new Writer();
  writeDateTime(w, dt);
  return w.finish();
}

/** [AX-5.1] Reads an octet-string's value as a date-time; it must be exactly 12 bytes. */
export function decodeDateTime(bytes: Uint8Array): Result<DateTime> {
  return attempt(() => {
    if (bytes.length !== 12) fail('bad_length', 'AX-5.1', `date-time of ${bytes.length} bytes, not 12`, 0);
    return readDateTime(new Reader(bytes));
  });
}

/**
 * [AX-5.4] The date-time of an instant as a clock `offsetMinutes` east of UTC shows it (India: 330),
 * deviation written as UTC − local (IST: −330).
 */
export function dateTimeFromInstant(ms: number, offsetMinutes: number, status = 0): DateTime {
  const local = new Date(ms + offsetMinutes * 60_000);
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    dayOfWeek: ((local.getUTCDay() + 6) % 7) + 1,
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
    hundredths: Math.floor(local.getUTCMilliseconds() / 10),
    deviation: offsetMinutes === 0 ? 0 : -offsetMinutes,
    status,
  };
}

/**
 * [AX-5.4] The instant a date-time names, or null when a field it needs is not specified or special.
 * A date-time without deviation is read as `assumeOffsetMinutes` east of UTC, when given.
 */
export function dateTimeToInstant(dt: DateTime, assumeOffsetMinutes?: number): number | null {
  const { year, month, day, hour, minute, second } = dt;
  if (
    year === null ||
    month === null ||
    day === null ||
    hour === null ||
    minute === null ||
    second === null
  ) {
    return null;
  }
  if (month > 12 || day > 31) return null;
  const deviation = dt.deviation ?? (assumeOffsetMinutes === undefined ? null : -assumeOffsetMinutes);
  if (deviation === null) return null;
  const local = Date.UTC(year, month - 1, day, hour, minute, second, (dt.hundredths ?? 0) * 10);
  return local + deviation * 60_000;
}
