// How one field value is written on the wire and read back [SP-3]. Pure; decoders return null for a value
// that breaks its rule, and the codec turns that into a `bad_value` error.

import type { FieldType, Property } from './frames.ts';

/** [SP-3.4] Bytes written as themselves in a string; every other byte is `%XX`. */
const LITERAL = /^[A-Za-z0-9._~:-]$/;
const INT_TEXT = /^(0|-?[1-9][0-9]*)$/;
/** [SP-3.2] JSON number grammar. */
const NUM_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const PROPERTY_ID = /^[a-z][a-z0-9_]{0,63}$/;

/** A UTF-16 code unit D800-DFFF without its pair: with the u flag it is a code point of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * [SP-3.4] Whether a string is text a line can carry: UTF-8 has no bytes for a lone surrogate (an encoder
 * writes U+FFFD instead), so such a string is refused, never sent changed.
 */
export function isText(value: unknown): value is string {
  return typeof value === 'string' && !LONE_SURROGATE.test(value);
}

/**
 * [SP-2.8] [SP-3.4] Text a sender writes about someone else's input (an ERR or NAK `msg` quoting a
 * hostile line), shortened to at most `maxWireBytes` once escaped, cut between characters, with any
 * lone surrogate it quotes shown as U+FFFD: such text is the sender's own words, so it is made writable
 * instead of refused, and its line always fits.
 */
export function quotableText(text: string, maxWireBytes: number): string {
  let out = '';
  let wire = 0;
  for (const codePoint of text) {
    const ch = LONE_SURROGATE.test(codePoint) ? '\ufffd' : codePoint;
    const bytes = escapeString(ch).length;
    if (wire + bytes > maxWireBytes) break;
    out += ch;
    wire += bytes;
  }
  return out;
}

/** [SP-3.4] UTF-8 bytes of `text`, each outside the literal set as `%XX` (upper-case hex). */
export function escapeString(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += LITERAL.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** [SP-3.4] The text of an escaped string, or null: a stray byte, lower-case or short `%XX`, bad UTF-8. */
export function unescapeString(wire: string): string | null {
  const bytes: number[] = [];
  for (let i = 0; i < wire.length; i++) {
    const ch = wire[i]!;
    if (ch === '%') {
      const hex = wire.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) return null;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (LITERAL.test(ch)) bytes.push(ch.charCodeAt(0));
    else return null;
  }
  const buf = Buffer.from(bytes);
  // Decoding is lossy on bad UTF-8, so a round trip that changes the bytes means the bytes were invalid.
  const text = buf.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buf) ? text : null;
}

/** [SP-3.6] `id;context;unit` items joined by `,`. */
function formatProps(props: readonly Property[]): string {
  return props.map((p) => `${p.property_id};${p.context_type};${escapeString(p.unit)}`).join(',');
}

function parseProps(wire: string): Property[] | null {
  if (wire === '') return [];
  const out: Property[] = [];
  for (const item of wire.split(',')) {
    const parts = item.split(';');
    if (parts.length !== 3) return null;
    const [id, context, unitWire] = parts as [string, string, string];
    const unit = unescapeString(unitWire);
    if (!PROPERTY_ID.test(id) || unit === null) return null;
    if (context !== 'cumulative' && context !== 'instantaneous') return null;
    out.push({ property_id: id, context_type: context, unit });
  }
  return out;
}

/** An int field's bounds, where the table gives them (keepalive_s, SP-4.1). */
function inRange(type: { min?: number; max?: number }, n: number): boolean {
  return (type.min === undefined || n >= type.min) && (type.max === undefined || n <= type.max);
}

/** The wire text of `value`, or null when it does not have the field's type. */
export function formatValue(type: FieldType, value: unknown): string | null {
  switch (type.kind) {
    case 'int':
      return Number.isSafeInteger(value) && inRange(type, value as number) ? String(value) : null;
    case 'num':
      // [SP-3.2] JavaScript's shortest round-trip form; -0 is written 0.
      return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
    case 'bool':
      return typeof value === 'boolean' ? (value ? '1' : '0') : null;
    case 'str':
      return isText(value) ? escapeString(value) : null;
    case 'enum':
      return typeof value === 'string' && type.values.includes(value) ? value : null;
    case 'props':
      return Array.isArray(value) && value.every((p: Property) => isText(p?.unit))
        ? formatProps(value as Property[])
        : null;
  }
}

/** Why formatValue refused `value`, for the sender's error: a lone surrogate is named as such [SP-3.4]. */
export function formatRefusal(type: FieldType, value: unknown): string {
  const lone =
    (type.kind === 'str' && typeof value === 'string' && !isText(value)) ||
    (type.kind === 'props' &&
      Array.isArray(value) &&
      value.some((p: Property) => typeof p?.unit === 'string' && !isText(p.unit)));
  return lone
    ? 'holds a lone UTF-16 surrogate (such as \\ud800), which is not text and has no UTF-8 bytes [SP-3.4]'
    : `is not ${describeType(type)}`;
}

/** The value of a field's wire text, or null when it breaks the field's rule [SP-3]. */
export function parseValue(type: FieldType, wire: string): unknown {
  switch (type.kind) {
    case 'int': {
      if (!INT_TEXT.test(wire)) return null;
      const n = Number(wire);
      return Number.isSafeInteger(n) && inRange(type, n) ? n : null;
    }
    case 'num': {
      if (!NUM_TEXT.test(wire)) return null;
      const n = Number(wire);
      return Number.isFinite(n) ? n : null;
    }
    case 'bool':
      return wire === '1' ? true : wire === '0' ? false : null;
    case 'str':
      return unescapeString(wire);
    case 'enum':
      return type.values.includes(wire) ? wire : null;
    case 'props':
      return parseProps(wire);
  }
}

/** A short description of what a type accepts, for error messages. */
export function describeType(type: FieldType): string {
  switch (type.kind) {
    case 'int':
      return type.min !== undefined && type.max !== undefined
        ? `an integer in ${type.min}..${type.max}`
        : 'an integer';
    case 'num':
      return 'a finite number';
    case 'bool':
      return '1 or 0';
    case 'str':
      return 'a %-escaped string';
    case 'enum':
      return `one of ${type.values.join(', ')}`;
    case 'props':
      return 'id;context;unit items joined by ","';
  }
}
