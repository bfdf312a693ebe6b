// COSEM Data: the typed values of attributes and method parameters, as a tagged union, and their A-XDR
// encoding (a tag byte, then the value) [AX-3]. Nesting and lengths are bounded [AX-4] so hostile input
// costs bounded work per byte.

import { Reader, Writer } from './axdr.ts';
import { type DateTime, readDateTime, writeDateTime } from './datetime.ts';
import { attempt, fail, type Result } from './errors.ts';

/** [AX-3.1] The data tags. */
export const DATA_TAGS = {
  'null-data': 0,
  array: 1,
  structure: 2,
  boolean: 3,
  'bit-string': 4,
  'double-long': 5,
  'double-long-unsigned': 6,
  'octet-string': 9,
  'visible-string': 10,
  'utf8-string': 12,
  bcd: 13,
  integer: 15,
  long: 16,
  unsigned: 17,
  'long-unsigned': 18,
  long64: 20,
  'long64-unsigned': 21,
  enum: 22,
  float32: 23,
  float64: 24,
  'date-time': 25,
  date: 26,
  time: 27,
} as const;

export type DataType = keyof typeof DATA_TAGS;

/** Integer types held in a JavaScript number, with their range [AX-3.3]. */
export const INT_RANGES = {
  integer: [-128, 127],
  long: [-32768, 32767],
  'double-long': [-2147483648, 2147483647],
  unsigned: [0, 255],
  'long-unsigned': [0, 65535],
  'double-long-unsigned': [0, 4294967295],
  enum: [0, 255],
  bcd: [0, 255],
} as const;
export type IntType = keyof typeof INT_RANGES;

export type Data =
  | { type: 'null-data' }
  | { type: 'array'; items: Data[] }
  | { type: 'structure'; items: Data[] }
  | { type: 'boolean'; value: boolean }
  /** Bits as text of `0` and `1`, first bit first [AX-3.4]. */
  | { type: 'bit-string'; value: string }
  | { type: IntType; value: number }
  | { type: 'long64' | 'long64-unsigned'; value: bigint }
  | { type: 'octet-string'; value: Uint8Array }
  | { type: 'visible-string' | 'utf8-string'; value: string }
  | { type: 'float32' | 'float64'; value: number }
  | { type: 'date-time'; value: DateTime }
  /** [AX-3.7] date (5 bytes) and time (4 bytes) kept as their bytes. */
  | { type: 'date' | 'time'; value: Uint8Array };

/** [AX-4.1] Deepest nesting of arrays and structures a decoder follows. */
export const MAX_DEPTH = 16;

const TAG_TYPES = new Map<number, DataType>(
  Object.entries(DATA_TAGS).map(([name, tag]) => [tag, name as DataType]),
);

/** Decodes one Data that must fill `bytes` exactly [AX-1.5]. */
export function decodeData(bytes: Uint8Array): Result<Data> {
  return attempt(() => {
    const r = new Reader(bytes);
    const d = readData(r);
    r.end('Data');
    return d;
  });
}

export function encodeData(d: Data): Uint8Array {
  const w = new Writer();
  writeData(w, d);
  return w.finish();
}

/** Reads one Data at the reader's position (used inside APDUs). Throws DecodeFailure. */
export function readData(r: Reader, depth = 0): Data {
  const at = r.offset;
  const tag = r.u8('data tag');
  const type = TAG_TYPES.get(tag);
  if (type === undefined) {
    const rule = tag === 19 ? 'AX-3.8' : 'AX-3.1';
    fail(tag === 19 ? 'unsupported' : 'bad_tag', rule, `data tag ${tag}`, at);
  }
  switch (type) {
    case 'null-data':
      return { type };
    case 'array':
    case 'structure': {
      if (depth >= MAX_DEPTH) fail('too_deep', 'AX-4.1', `nesting deeper than ${MAX_DEPTH}`, at);
      // [AX-4.2] every element takes at least its tag byte, so the count is bounded by the input.
      const n = r.boundedLength(`${type} count`);
      const items: Data[] = [];
      for (let i = 0; i < n; i++) items.push(readData(r, depth + 1));
      return { type, items };
    }
    case 'boolean':
      // [AX-3.2] any non-zero byte is true.
      return { type, value: r.u8('boolean') !== 0 };
    case 'bit-string': {
      const bits = r.length('bit-string length');
      const bytes = r.take(Math.ceil(bits / 8), 'bit-string');
      let value = '';
      for (let i = 0; i < bits; i++) value += (bytes[i >> 3]! >> (7 - (i & 7))) & 1 ? '1' : '0';
      return { type, value };
    }
    case 'integer':
      return { type, value: r.i8() };
    case 'long':
      return { type, value: r.i16() };
    case 'double-long':
      return { type, value: r.i32() };
    case 'unsigned':
    case 'enum':
    case 'bcd':
      return { type, value: r.u8() };
    case 'long-unsigned':
      return { type, value: r.u16() };
    case 'double-long-unsigned':
      return { type, value: r.u32() };
    case 'long64':
      return { type, value: r.i64() };
    case 'long64-unsigned':
      return { type, value: r.u64() };
    case 'float32':
      return { type, value: r.f32() };
    case 'float64':
      return { type, value: r.f64() };
    case 'octet-string':
      return { type, value: r.take(r.boundedLength('octet-string length'), 'octet-string') };
    case 'visible-string': {
      // [AX-3.5] one character per byte (Latin-1), so any byte reads back to the same byte.
      const b = r.take(r.boundedLength('visible-string length'), 'visible-string');
      return { type, value: Buffer.from(b).toString('latin1') };
    }
    case 'utf8-string': {
      const at2 = r.offset;
      const b = r.take(r.boundedLength('utf8-string length'), 'utf8-string');
      const value = utf8(b);
      if (value === null) fail('bad_value', 'AX-3.5', 'utf8-string is not UTF-8', at2);
      return { type, value };
    }
    case 'date-time':
      return { type, value: readDateTime(r) };
    case 'date':
      return { type, value: r.take(5, 'date') };
    case 'time':
      return { type, value: r.take(4, 'time') };
  }
}

export function writeData(w: Writer, d: Data): void {
  w.u8(DATA_TAGS[d.type]);
  switch (d.type) {
    case 'null-data':
      return;
    case 'array':
    case 'structure':
      w.length(d.items.length);
      for (const item of d.items) writeData(w, item);
      return;
    case 'boolean':
      w.u8(d.value ? 1 : 0);
      return;
    case 'bit-string': {
      if (!/^[01]*$/.test(d.value)) throw new RangeError('bit-string holds characters other than 0 and 1');
      const bytes = new Uint8Array(Math.ceil(d.value.length / 8));
      for (let i = 0; i < d.value.length; i++) if (d.value[i] === '1') bytes[i >> 3]! |= 0x80 >> (i & 7);
      w.length(d.value.length).bytes(bytes);
      return;
    }
    case 'integer':
    case 'long':
    case 'double-long':
    case 'unsigned':
    case 'enum':
    case 'bcd':
    case 'long-unsigned':
    case 'double-long-unsigned': {
      const [lo, hi] = INT_RANGES[d.type];
      if (!Number.isInteger(d.value) || d.value < lo || d.value > hi) {
        throw new RangeError(`${d.type} ${d.value} outside ${lo}..${hi} [AX-3.3]`);
      }
      if (d.type === 'integer') w.u8(d.value & 0xff);
      else if (d.type === 'long') w.i16(d.value);
      else if (d.type === 'double-long') w.i32(d.value);
      else if (d.type === 'long-unsigned') w.u16(d.value);
      else if (d.type === 'double-long-unsigned') w.u32(d.value);
      else w.u8(d.value);
      return;
    }
    case 'long64':
      w.i64(BigInt.asIntN(64, d.value) === d.value ? d.value : range(d.type, d.value));
      return;
    case 'long64-unsigned':
      w.u64(BigInt.asUintN(64, d.value) === d.value ? d.value : range(d.type, d.value));
      return;
    case 'float32':
      w.f32(d.value);
      return;
    case 'float64':
      w.f64(d.value);
      return;
    case 'octet-string':
      w.length(d.value.length).bytes(d.value);
      return;
    case 'visible-string': {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the check is for bytes above Latin-1.
      if (/[^\u0000-\u00ff]/.test(d.value))
        throw new RangeError('visible-string beyond one byte a character [AX-3.5]');
      const b = Buffer.from(d.value, 'latin1');
      w.length(b.length).bytes(b);
      return;
    }
    case 'utf8-string': {
      const b = new TextEncoder().encode(d.value);
      w.length(b.length).bytes(b);
      return;
    }
    case 'date-time':
      writeDateTime(w, d.value);
      return;
    case 'date':
    case 'time': {
      const n = d.type === 'date' ? 5 : 4;
      if (d.value.length !== n) throw new RangeError(`${d.type} takes ${n} bytes [AX-3.7]`);
      w.bytes(d.value);
      return;
    }
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function utf8(b: Uint8Array): string | null {
  try {
    return strictUtf8.decode(b);
  } catch {
    return null;
  }
}

function range(type: string, v: bigint): never {
  throw new RangeError(`${type} ${v} out of range [AX-3.3]`);
}
