// The little of BER (X.690) the ACSE APDUs need: one-byte tags, definite lengths, object identifiers
// [AP-2.1, AP-2.2].

import { Reader, type Writer } from './axdr.ts';
import { fail } from './errors.ts';

export interface Tlv {
  tag: number;
  value: Uint8Array;
  /** Where the TLV and its value start in the whole APDU. */
  offset: number;
  valueOffset: number;
}

/** [AP-2.1] One TLV: a one-byte tag, a definite length (short form, or 0x81/0x82 + 1–2 bytes). */
export function readTlv(r: Reader): Tlv {
  const offset = r.offset;
  const tag = r.u8('BER tag');
  if ((tag & 0x1f) === 0x1f)
    fail('unsupported', 'AP-2.1', `multi-byte BER tag 0x${tag.toString(16)}`, offset);
  const first = r.u8('BER length');
  let len = first;
  if (first >= 0x80) {
    const n = first & 0x7f;
    if (n === 0 || n > 2) fail('bad_length', 'AP-2.1', `BER length form 0x${first.toString(16)}`, offset + 1);
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + r.u8('BER length');
  }
  const valueOffset = r.offset;
  return { tag, value: r.take(len, `BER value of tag 0x${tag.toString(16)}`), offset, valueOffset };
}

/** Every TLV in a constructed TLV's value, in order. */
export function readTlvs(t: Tlv): Tlv[] {
  const r = new Reader(t.value, t.valueOffset);
  const out: Tlv[] = [];
  while (r.remaining > 0) out.push(readTlv(r));
  return out;
}

export function writeTlv(w: Writer, tag: number, value: Uint8Array): void {
  w.u8(tag);
  if (value.length < 0x80) w.u8(value.length);
  else if (value.length < 0x100) w.u8(0x81).u8(value.length);
  else if (value.length < 0x10000) w.u8(0x82).u16(value.length);
  else throw new RangeError(`BER value of ${value.length} bytes [AP-2.1]`);
  w.bytes(value);
}

/** [AP-2.2] An object identifier's content octets, from dotted text. */
export function encodeOid(oid: string): Uint8Array {
  const arcs = oid.split('.').map(Number);
  if (arcs.length < 2 || arcs.some((a) => !Number.isInteger(a) || a < 0 || a > 0xffff_ffff) || arcs[0]! > 2) {
    throw new RangeError(`not an object identifier: ${oid}`);
  }
  const out: number[] = [];
  const push = (v: number) => {
    const groups = [v & 0x7f];
    for (let x = Math.floor(v / 128); x > 0; x = Math.floor(x / 128)) groups.unshift((x & 0x7f) | 0x80);
    out.push(...groups);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const a of arcs.slice(2)) push(a);
  return Uint8Array.from(out);
}

/** [AP-2.2] Dotted text of an object identifier's content octets. */
export function decodeOid(b: Uint8Array, offset: number): string {
  const arcs: number[] = [];
  let v = 0;
  let open = false;
  for (const byte of b) {
    v = v * 128 + (byte & 0x7f);
    if (v > 0xffff_ffff) fail('bad_value', 'AP-2.2', 'object identifier arc too large', offset);
    open = (byte & 0x80) !== 0;
    if (open) continue;
    if (arcs.length === 0) arcs.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
    else arcs.push(v);
    v = 0;
  }
  if (open || arcs.length === 0) fail('bad_value', 'AP-2.2', 'object identifier cut short', offset);
  return arcs.join('.');
}
