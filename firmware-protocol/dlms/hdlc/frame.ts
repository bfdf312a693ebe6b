// HDLC frame format type 3 as IEC 62056-46 uses it: one frame <-> its bytes, flags included. Pure: no I/O,
// no clock, never throws on input (decodeFrame); encodeFrame throws a TypeError only on a frame our own
// code built wrongly. Rule numbers refer to ../HDLC.md.

import { fcs16 } from './fcs16.ts';

export const FLAG = 0x7e;
/** [HD-2.2] The 11-bit frame length field: bytes between the flags, at most 2047. */
export const MAX_FRAME_LENGTH = 0x7ff;
/** [HD-2.1] The shortest frame: flag, format (2), two one-byte addresses, control, FCS (2), flag. */
export const MIN_FRAME_BYTES = 9;

/**
 * [HD-3] An HDLC address. One byte holds a 7-bit value (a client SAP, or a server's upper address alone);
 * two and four bytes hold the server's upper (logical device) and lower (physical device) addresses, 7 or
 * 14 bits each.
 */
export type HdlcAddress = { bytes: 1; value: number } | { bytes: 2 | 4; upper: number; lower: number };

export type UnnumberedType = 'SNRM' | 'DISC' | 'UA' | 'DM' | 'FRMR' | 'UI';
export type FrameType = 'I' | 'RR' | 'RNR' | UnnumberedType;

/** [HD-4] The control field. `unknown` is a well-framed frame whose control byte HD-4 does not allow. */
export type Control =
  | { type: 'I'; ns: number; nr: number; pf: boolean }
  | { type: 'RR' | 'RNR'; nr: number; pf: boolean }
  | { type: UnnumberedType; pf: boolean }
  | { type: 'unknown'; byte: number };

export interface HdlcFrame {
  /** [HD-2.3] The segmentation bit S of the format field: more of this message follows. */
  segmented: boolean;
  dest: HdlcAddress;
  src: HdlcAddress;
  control: Control;
  /** [HD-5] The information field (empty when the frame has none). */
  info: Uint8Array;
}

export type FrameErrorCode =
  | 'too_short'
  | 'no_flag'
  | 'bad_format'
  | 'bad_length'
  | 'bad_address'
  | 'bad_hcs'
  | 'bad_fcs';

export interface FrameError {
  code: FrameErrorCode;
  /** The rule the bytes break, e.g. `HD-3.1`. */
  rule: string;
  message: string;
}

export type FrameResult = { ok: true; frame: HdlcFrame } | { ok: false; error: FrameError };

const fail = (code: FrameErrorCode, rule: string, message: string): FrameResult => ({
  ok: false,
  error: { code, rule, message },
});

// [HD-4.1] Unnumbered commands and responses, P/F bit (0x10) cleared.
const U_CODES: Record<UnnumberedType, number> = {
  SNRM: 0x83,
  DISC: 0x43,
  UA: 0x63,
  DM: 0x0f,
  FRMR: 0x87,
  UI: 0x03,
};
const U_BY_CODE = new Map<number, UnnumberedType>(
  Object.entries(U_CODES).map(([type, code]) => [code, type as UnnumberedType]),
);

export function decodeControl(byte: number): Control {
  const pf = (byte & 0x10) !== 0;
  const nr = byte >>> 5;
  if ((byte & 0x01) === 0) return { type: 'I', ns: (byte >>> 1) & 7, nr, pf };
  if ((byte & 0x03) === 0x01) {
    // [HD-4.1] Of the supervisory frames DLMS uses RR and RNR only; REJ and SREJ are not allowed.
    const kind = (byte >>> 2) & 3;
    if (kind === 0) return { type: 'RR', nr, pf };
    if (kind === 1) return { type: 'RNR', nr, pf };
    return { type: 'unknown', byte };
  }
  const type = U_BY_CODE.get(byte & ~0x10);
  return type === undefined ? { type: 'unknown', byte } : { type, pf };
}

export function encodeControl(control: Control): number {
  switch (control.type) {
    case 'I':
      return (seq(control.nr) << 5) | (control.pf ? 0x10 : 0) | (seq(control.ns) << 1);
    case 'RR':
    case 'RNR':
      return (seq(control.nr) << 5) | (control.pf ? 0x10 : 0) | (control.type === 'RR' ? 0x01 : 0x05);
    case 'unknown':
      return byteOf(control.byte, 'control byte');
    default:
      return U_CODES[control.type] | (control.pf ? 0x10 : 0);
  }
}

/**
 * [HD-3.1] Reads an address from `at`: bytes until one has its low (extension) bit set, at most 4, and
 * 1, 2 or 4 of them. Returns the address and the index after it, or null.
 */
function readAddress(bytes: Uint8Array, at: number, end: number): [HdlcAddress, number] | null {
  let n = 0;
  while (at + n < end && n < 4) {
    n++;
    if ((bytes[at + n - 1]! & 1) === 1) break;
  }
  if (n === 0 || (bytes[at + n - 1]! & 1) !== 1 || n === 3) return null;
  const b = (i: number) => bytes[at + i]! >>> 1;
  if (n === 1) return [{ bytes: 1, value: b(0) }, at + 1];
  if (n === 2) return [{ bytes: 2, upper: b(0), lower: b(1) }, at + 2];
  return [{ bytes: 4, upper: (b(0) << 7) | b(1), lower: (b(2) << 7) | b(3) }, at + 4];
}

function writeAddress(address: HdlcAddress): number[] {
  if (address.bytes === 1) return [(field(address.value, 0x7f, 'address') << 1) | 1];
  if (address.bytes === 2) {
    return [
      field(address.upper, 0x7f, 'upper address') << 1,
      (field(address.lower, 0x7f, 'lower address') << 1) | 1,
    ];
  }
  const upper = field(address.upper, 0x3fff, 'upper address');
  const lower = field(address.lower, 0x3fff, 'lower address');
  return [(upper >>> 7) << 1, (upper & 0x7f) << 1, (lower >>> 7) << 1, ((lower & 0x7f) << 1) | 1];
}

/** The index just past the control field of a whole frame, or null when its addresses do not parse. */
export function headerLength(bytes: Uint8Array): number | null {
  const end = bytes.length - 3;
  const dest = readAddress(bytes, 3, end);
  const src = dest === null ? null : readAddress(bytes, dest[1], end);
  return src === null || src[1] >= end ? null : src[1] + 1;
}

/** Decodes one whole frame, opening and closing flag included. Checks run in HDLC.md's order. */
export function decodeFrame(bytes: Uint8Array): FrameResult {
  const n = bytes.length;
  if (n < MIN_FRAME_BYTES)
    return fail('too_short', 'HD-2.1', `${n} bytes; a frame has at least ${MIN_FRAME_BYTES}`);
  if (bytes[0] !== FLAG || bytes[n - 1] !== FLAG)
    return fail('no_flag', 'HD-2.1', 'a frame starts and ends with 0x7E');
  const format = (bytes[1]! << 8) | bytes[2]!;
  if (format >>> 12 !== 0xa) {
    return fail('bad_format', 'HD-2.2', `format field 0x${hex4(format)} is not type 3 (0xA...)`);
  }
  const length = format & MAX_FRAME_LENGTH;
  if (length !== n - 2)
    return fail('bad_length', 'HD-2.2', `length field ${length}, ${n - 2} bytes between the flags`);
  const end = n - 3; // index of the FCS
  const dest = readAddress(bytes, 3, end);
  if (dest === null) return fail('bad_address', 'HD-3.1', 'destination address is not 1, 2 or 4 bytes');
  const src = readAddress(bytes, dest[1], end);
  if (src === null) return fail('bad_address', 'HD-3.1', 'source address is not 1, 2 or 4 bytes');
  const controlAt = src[1];
  if (controlAt >= end) return fail('bad_length', 'HD-2.2', 'no room for the control field');
  const headerEnd = controlAt + 1;
  const rest = end - headerEnd; // bytes between the control field and the FCS
  if (rest !== 0 && rest < 3) return fail('bad_length', 'HD-2.4', 'an HCS must be followed by information');
  if (rest > 0) {
    const hcs = fcs16(bytes, 1, headerEnd);
    const got = bytes[headerEnd]! | (bytes[headerEnd + 1]! << 8);
    if (hcs !== got) return fail('bad_hcs', 'HD-2.5', `HCS 0x${hex4(got)}, computed 0x${hex4(hcs)}`);
  }
  const fcs = fcs16(bytes, 1, end);
  const got = bytes[end]! | (bytes[end + 1]! << 8);
  if (fcs !== got) return fail('bad_fcs', 'HD-2.5', `FCS 0x${hex4(got)}, computed 0x${hex4(fcs)}`);
  return {
    ok: true,
    frame: {
      segmented: (format & 0x0800) !== 0,
      dest: dest[0],
      src: src[0],
      control: decodeControl(bytes[controlAt]!),
      // A copy, and a plain Uint8Array even when given a Buffer (whose slice is a view).
      info: new Uint8Array(bytes.subarray(rest > 0 ? headerEnd + 2 : headerEnd, end)),
    },
  };
}

/** The whole frame's bytes, flags included. */
export function encodeFrame(frame: HdlcFrame): Uint8Array {
  const header = [...writeAddress(frame.dest), ...writeAddress(frame.src), encodeControl(frame.control)];
  const info = frame.info;
  const length = 2 + header.length + (info.length > 0 ? 2 + info.length : 0) + 2;
  if (length > MAX_FRAME_LENGTH) {
    throw new TypeError(
      `HDLC frame of ${length} bytes; the length field holds at most ${MAX_FRAME_LENGTH} [HD-2.2]`,
    );
  }
  const out = new Uint8Array(length + 2);
  out[0] = FLAG;
  out[1] = 0xa0 | (frame.segmented ? 0x08 : 0) | (length >>> 8);
  out[2] = length & 0xff;
  out.set(header, 3);
  let at = 3 + header.length;
  if (info.length > 0) {
    const hcs = fcs16(out, 1, at);
    out[at++] = hcs & 0xff;
    out[at++] = hcs >>> 8;
    out.set(info, at);
    at += info.length;
  }
  const fcs = fcs16(out, 1, at);
  out[at++] = fcs & 0xff;
  out[at++] = fcs >>> 8;
  out[at] = FLAG;
  return out;
}

/** [HD-2.2] Bytes between the flags of a frame with these addresses and `infoBytes` of information. */
export function frameLength(dest: HdlcAddress, src: HdlcAddress, infoBytes: number): number {
  return 2 + dest.bytes + src.bytes + 1 + (infoBytes > 0 ? 2 + infoBytes : 0) + 2;
}

function seq(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 7)
    throw new TypeError(`sequence number ${n} is not 0..7 [HD-4.2]`);
  return n;
}

function field(n: number, max: number, what: string): number {
  if (!Number.isInteger(n) || n < 0 || n > max) throw new TypeError(`${what} ${n} is not 0..${max} [HD-3.1]`);
  return n;
}

function byteOf(n: number, what: string): number {
  return field(n, 0xff, what);
}

const hex4 = (n: number) => n.toString(16).toUpperCase().padStart(4, '0');
