// A-XDR primitives: a bounds-checked reader and a growing writer over bytes, and the variable-length
// encoding of lengths and element counts [AX-2]. Everything here is big-endian [AX-1.3].

import { fail } from './errors.ts';

/** Largest length or count a decoder accepts [AX-2.3]: what four length bytes can say, and far more
 *  than any PDU holds; the real bound is the bytes left in the input. */
const MAX_LENGTH = 0xffff_ffff;

export class Reader {
  private pos = 0;
  private readonly view: DataView;

  /** `base`: where `bytes` start in the whole APDU, so errors inside a nested field give its offset there. */
  constructor(
    readonly bytes: Uint8Array,
    private readonly base = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The position in the whole APDU. */
  get offset(): number {
    return this.base + this.pos;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  /** [AX-1.4] Every read first checks the bytes are there. */
  need(n: number, what: string): void {
    if (n > this.remaining) {
      fail('truncated', 'AX-1.4', `${what}: needs ${n} bytes, ${this.remaining} left`, this.offset);
    }
  }

  u8(what = 'byte'): number {
    this.need(1, what);
    return this.bytes[this.pos++]!;
  }

  peek(): number | undefined {
    return this.bytes[this.pos];
  }

  u16(what = 'unsigned16'): number {
    this.need(2, what);
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  i8(what = 'integer8'): number {
    this.need(1, what);
    return this.view.getInt8(this.pos++);
  }

  i16(what = 'integer16'): number {
    this.need(2, what);
    const v = this.view.getInt16(this.pos);
    this.pos += 2;
    return v;
  }

  u32(what = 'unsigned32'): number {
    this.need(4, what);
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }

  i32(what = 'integer32'): number {
    this.need(4, what);
    const v = this.view.getInt32(this.pos);
    this.pos += 4;
    return v;
  }

  i64(what = 'integer64'): bigint {
    this.need(8, what);
    const v = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return v;
  }

  u64(what = 'unsigned64'): bigint {
    this.need(8, what);
    const v = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return v;
  }

  f32(what = 'float32'): number {
    this.need(4, what);
    const v = this.view.getFloat32(this.pos);
    this.pos += 4;
    return v;
  }

  f64(what = 'float64'): number {
    this.need(8, what);
    const v = this.view.getFloat64(this.pos);
    this.pos += 8;
    return v;
  }

  /** A copy of the next `n` bytes, so a decoded value never aliases the input buffer. */
  take(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    const out = this.bytes.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** The rest of the input. */
  rest(): Uint8Array {
    return this.take(this.remaining);
  }

  /**
   * [AX-2.1, AX-2.2] A length or a count: one byte below 0x80, else 0x80 + n followed by n (1–4)
   * big-endian bytes. [AX-2.3] 0x80 alone (indefinite) and n > 4 are refused.
   */
  length(what = 'length'): number {
    const at = this.offset;
    const first = this.u8(what);
    if (first < 0x80) return first;
    const n = first & 0x7f;
    if (n === 0 || n > 4) fail('bad_length', 'AX-2.3', `${what}: length form 0x${hex2(first)}`, at);
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + this.u8(what);
    if (v > MAX_LENGTH) fail('bad_length', 'AX-2.3', `${what}: ${v} too long`, at);
    return v;
  }

  /** A length that must fit in what is left [AX-2.4]: checked before anything is allocated. */
  boundedLength(what: string, minBytesEach = 1): number {
    const at = this.offset;
    const n = this.length(what);
    if (n * minBytesEach > this.remaining) {
      fail('truncated', 'AX-2.4', `${what}: ${n} announced, ${this.remaining} bytes left`, at);
    }
    return n;
  }

  /** [AX-1.5] A whole PDU leaves no bytes behind. */
  end(what: string): void {
    if (this.remaining > 0) {
      fail('trailing', 'AX-1.5', `${this.remaining} bytes after the end of ${what}`, this.offset);
    }
  }
}

export function hex2(b: number): string {
  return b.toString(16).padStart(2, '0');
}

export class Writer {
  private buf = new Uint8Array(64);
  private len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  u8(v: number): this {
    this.room(1);
    this.buf[this.len++] = v & 0xff;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
    return this;
  }

  private fixed(n: number, set: (v: DataView) => void): this {
    this.room(n);
    set(new DataView(this.buf.buffer, this.len, n));
    this.len += n;
    return this;
  }

  u16(v: number): this {
    return this.fixed(2, (d) => d.setUint16(0, v));
  }
  i16(v: number): this {
    return this.fixed(2, (d) => d.setInt16(0, v));
  }
  u32(v: number): this {
    return this.fixed(4, (d) => d.setUint32(0, v));
  }
  i32(v: number): this {
    return this.fixed(4, (d) => d.setInt32(0, v));
  }
  i64(v: bigint): this {
    return this.fixed(8, (d) => d.setBigInt64(0, v));
  }
  u64(v: bigint): this {
    return this.fixed(8, (d) => d.setBigUint64(0, v));
  }
  f32(v: number): this {
    return this.fixed(4, (d) => d.setFloat32(0, v));
  }
  f64(v: number): this {
    return this.fixed(8, (d) => d.setFloat64(0, v));
  }

  /** [AX-2.1] Lengths are written in their shortest form. */
  length(n: number): this {
    if (!Number.isInteger(n) || n < 0 || n > MAX_LENGTH) throw new RangeError(`length ${n} [AX-2.3]`);
    if (n < 0x80) return this.u8(n);
    const out: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) out.unshift(v & 0xff);
    this.u8(0x80 | out.length);
    for (const b of out) this.u8(b);
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/** Hex text of bytes, lower case, no separators. */
export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

/** Bytes of hex text; spaces are ignored. Throws on bad text (for tests and constants, not wire input). */
export function fromHex(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  if (!/^([0-9a-fA-F]{2})*$/.test(clean)) throw new TypeError(`not hex: ${text}`);
  return new Uint8Array(Buffer.from(clean, 'hex'));
}
