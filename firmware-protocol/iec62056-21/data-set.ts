// The data block of a data message: data lines of data sets `address(value*unit)` [IEC-3], and the OBIS
// reading of an address [IEC-3.4]. Pure; never throws on received text. Rule numbers refer to ./PROTOCOL.md.

export interface DataValue {
  /** The value exactly as on the wire (leading zeros and spaces kept): a meter's text, not a number. */
  value: string;
  /** Absent when the data set has no `*unit`. */
  unit?: string;
}

export interface DataSet {
  /** The address before `(`, e.g. `1.8.0`, `1-0:1.8.0*255`, `C.1.0`; empty in a programming answer. */
  address: string;
  /** One group per `(...)`: meters add a second one (a time stamp) after some values [IEC-3.2]. */
  values: DataValue[];
}

/** [IEC-3.1] A data line is one or more data sets; the block is lines each ended by CR LF. */
export type DataLine = DataSet[];

export type DataErrorCode = 'bad_char' | 'syntax' | 'too_long';
export interface DataError {
  code: DataErrorCode;
  rule: string;
  message: string;
}
export type DataResult<T> = { ok: true; value: T } | { ok: false; error: DataError };

/** [IEC-3.3] Lengths we write; readers accept up to the `READ_` limits, as real meters overrun them. */
export const MAX_ADDRESS = 16;
export const MAX_VALUE = 32;
export const MAX_UNIT = 16;
export const READ_MAX_VALUE = 128;
export const READ_MAX_ADDRESS = 32;

// [IEC-3.3] Characters each part may not hold, beyond non-printables.
const NOT_IN_ADDRESS = '()/!';
const NOT_IN_VALUE = '()*/!';
const NOT_IN_UNIT = '()/!';

const fail = (code: DataErrorCode, rule: string, message: string) =>
  ({ ok: false, error: { code, rule, message } }) as const;

function clip(s: string): string {
  return JSON.stringify(s.length > 24 ? `${s.slice(0, 24)}…` : s);
}

function badChar(s: string, forbidden: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || forbidden.includes(s[i]!)) return i;
  }
  return -1;
}

/**
 * [IEC-3.2, IEC-3.3] Whether a data set can be written as it is; null when it can. Writers hold the
 * standard's lengths (MAX_*), not the lenient reading ones, and always write an address.
 */
export function checkDataSet(set: DataSet): string | null {
  // Without an address a set would read back as one more value of the set before it.
  if (set.address === '') return 'a data set we write has an address';
  if (set.address.length > MAX_ADDRESS) return `address ${clip(set.address)} over ${MAX_ADDRESS} characters`;
  if (badChar(set.address, NOT_IN_ADDRESS) >= 0)
    return `address ${clip(set.address)} has a forbidden character`;
  if (set.values.length === 0) return `data set ${clip(set.address)} has no value`;
  for (const v of set.values) {
    if (v.value.length > MAX_VALUE) return `value ${clip(v.value)} over ${MAX_VALUE} characters`;
    if (badChar(v.value, NOT_IN_VALUE) >= 0) return `value ${clip(v.value)} has a forbidden character`;
    if (v.unit !== undefined) {
      if (v.unit.length > MAX_UNIT) return `unit ${clip(v.unit)} over ${MAX_UNIT} characters`;
      if (badChar(v.unit, NOT_IN_UNIT) >= 0) return `unit ${clip(v.unit)} has a forbidden character`;
    }
  }
  return null;
}

/** [IEC-3.2] One data set as text. Throws a TypeError for a set checkDataSet refuses (a caller's bug). */
export function formatDataSet(set: DataSet): string {
  const problem = checkDataSet(set);
  if (problem !== null) throw new TypeError(`IEC-3.3: ${problem}`);
  return (
    set.address + set.values.map((v) => `(${v.value}${v.unit === undefined ? '' : `*${v.unit}`})`).join('')
  );
}

/** [IEC-3.1] The data block: each line's sets, then CR LF. */
export function formatDataBlock(lines: readonly DataLine[]): string {
  return lines.map((line) => `${line.map(formatDataSet).join('')}\r\n`).join('');
}

/**
 * [IEC-3.1, IEC-3.2] Reads the text of a data block (without STX and the closing `!`). CR LF ends a line;
 * a lone LF is accepted as well (captures show meters and probes that drop the CR); an empty line is
 * skipped. The last line may lack its CR LF (a programming answer has none).
 */
export function parseDataBlock(block: string): DataResult<DataLine[]> {
  const lines: DataLine[] = [];
  for (const raw of block.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '') continue;
    const parsed = parseDataLine(line);
    if (!parsed.ok) return parsed;
    lines.push(parsed.value);
  }
  return { ok: true, value: lines };
}

/** [IEC-3.2] One data line: `address(value*unit)` repeated, an address-less `(...)` adding a value. */
export function parseDataLine(line: string): DataResult<DataLine> {
  const sets: DataSet[] = [];
  let i = 0;
  while (i < line.length) {
    const open = line.indexOf('(', i);
    if (open < 0) return fail('syntax', 'IEC-3.2', `${clip(line.slice(i))} has no "("`);
    const close = line.indexOf(')', open + 1);
    if (close < 0) return fail('syntax', 'IEC-3.2', `${clip(line.slice(open))} has no ")"`);
    const address = line.slice(i, open);
    const inner = line.slice(open + 1, close);
    if (address.length > READ_MAX_ADDRESS) return fail('too_long', 'IEC-3.3', `address ${clip(address)}`);
    if (badChar(address, NOT_IN_ADDRESS) >= 0) {
      return fail('bad_char', 'IEC-3.3', `address ${clip(address)} has a forbidden character`);
    }
    const star = inner.indexOf('*');
    const value = star < 0 ? inner : inner.slice(0, star);
    const unit = star < 0 ? undefined : inner.slice(star + 1);
    if (value.length > READ_MAX_VALUE) return fail('too_long', 'IEC-3.3', `value ${clip(value)}`);
    if (badChar(value, NOT_IN_VALUE) >= 0) {
      return fail('bad_char', 'IEC-3.3', `value ${clip(value)} has a forbidden character`);
    }
    if (unit !== undefined && (unit.length > MAX_UNIT || badChar(unit, NOT_IN_UNIT) >= 0)) {
      return fail(unit.length > MAX_UNIT ? 'too_long' : 'bad_char', 'IEC-3.3', `unit ${clip(unit)}`);
    }
    const dv: DataValue = unit === undefined ? { value } : { value, unit };
    const last = sets[sets.length - 1];
    // An address-less group after a data set is that set's next value (`1.6.1(1.2*kW)(23-01-01 12:00)`).
    if (address === '' && last !== undefined) last.values.push(dv);
    else sets.push({ address, values: [dv] });
    i = close + 1;
  }
  return { ok: true, value: sets };
}

/** [IEC-3.4] The six OBIS groups A-B:C.D.E*F; a group the address leaves out is absent. */
export interface Obis {
  a?: number;
  b?: number;
  c: number;
  d?: number;
  e?: number;
  f?: number;
}

/** [IEC-3.4] Letters that stand for C or D group values in the short forms (C.1.0 is 96.1.0). */
const LETTERS: Readonly<Record<string, number>> = { C: 96, F: 97, L: 98, P: 99 };
const OBIS =
  /^(?:(\d{1,3})-)?(?:(\d{1,3}):)?(\d{1,3}|[CFLP])(?:\.(\d{1,3}|[CFLP]))?(?:\.(\d{1,3}))?(?:[*&](\d{1,3}))?$/;

/** [IEC-3.4] Reads an address as OBIS; the address text itself is always kept by the parser. */
export function parseObis(address: string): DataResult<Obis> {
  const m = OBIS.exec(address);
  if (m === null) return fail('syntax', 'IEC-3.4', `${clip(address)} is not an OBIS address`);
  const group = (s: string | undefined) => (s === undefined ? undefined : (LETTERS[s] ?? Number(s)));
  const parts = [m[1], m[2], m[3], m[4], m[5], m[6]].map(group);
  if (parts.some((n) => n !== undefined && n > 255)) {
    return fail('syntax', 'IEC-3.4', `${clip(address)} has a group over 255`);
  }
  const [a, b, c, d, e, f] = parts;
  const obis: Obis = { c: c! };
  if (a !== undefined) obis.a = a;
  if (b !== undefined) obis.b = b;
  if (d !== undefined) obis.d = d;
  if (e !== undefined) obis.e = e;
  if (f !== undefined) obis.f = f;
  return { ok: true, value: obis };
}

/**
 * [IEC-3.4, IEC-3.5] An OBIS code as an address: `A-B:C.D.E` when A and B are given, `*F` only when F
 * is given and not 255; C or D of 96..99 as their letter only where `letters` asks (the short forms).
 */
export function formatObis(obis: Obis, letters = false): string {
  const cd = (n: number) => (letters && n >= 96 && n <= 99 ? 'CFLP'[n - 96]! : String(n));
  let s = '';
  if (obis.a !== undefined) s += `${obis.a}-${obis.b ?? 0}:`;
  else if (obis.b !== undefined) s += `${obis.b}:`;
  s += cd(obis.c);
  if (obis.d !== undefined) s += `.${cd(obis.d)}`;
  if (obis.d !== undefined && obis.e !== undefined) s += `.${obis.e}`;
  if (obis.f !== undefined && obis.f !== 255) s += `*${obis.f}`;
  return s;
}

/**
 * [IEC-3.6] A number as a fixed-point value: `digits` after the point (the register's resolution),
 * zero-padded to `width` characters overall, e.g. (285.4, 1, 8) -> `000285.4`. Null when it does not fit
 * the width or IEC-3.3's 32 characters, or is not finite: a meter shows its register's own overflow
 * rather than a wrong number.
 */
export function formatFixed(n: number, digits: number, width = 0): string | null {
  if (!Number.isFinite(n) || !Number.isInteger(digits) || digits < 0 || digits > 20) return null;
  const neg = n < 0 || Object.is(n, -0);
  const body = Math.abs(n).toFixed(digits);
  if (body.includes('e')) return null; // toFixed writes 1e21 and above in exponent form
  const padded = body.padStart(Math.max(0, width - (neg && n !== 0 ? 1 : 0)), '0');
  const out = neg && Number(body) !== 0 ? `-${padded}` : padded;
  if (out.length > MAX_VALUE || (width > 0 && out.length > width)) return null;
  return out;
}
