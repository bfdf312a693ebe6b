// The characters of IEC 62056-21 and the byte-level arithmetic on them: even parity [IEC-1.2], the
// baud-rate characters [IEC-1.4] and the block check character [IEC-2.5]. Pure; rule numbers refer to
// ./PROTOCOL.md.

export const SOH = 0x01;
export const STX = 0x02;
export const ETX = 0x03;
export const EOT = 0x04;
export const ACK = 0x06;
export const NAK = 0x15;
export const CR = 0x0d;
export const LF = 0x0a;

/** The baud rate every session starts at, and returns to [IEC-1.3]. */
export const INITIAL_BAUD = 300;

/** [IEC-1.4] Mode C (and E) baud-rate characters. '7'..'9' are reserved by the standard. */
export const MODE_C_BAUDS = {
  '0': 300,
  '1': 600,
  '2': 1200,
  '3': 2400,
  '4': 4800,
  '5': 9600,
  '6': 19200,
} as const;
export type BaudChar = keyof typeof MODE_C_BAUDS;
export const BAUD_CHARS = Object.keys(MODE_C_BAUDS) as BaudChar[];

/** [IEC-1.4] Mode B letters: decoded so a reader can tell what it met; our meter never sends one. */
const MODE_B_BAUDS: Readonly<Record<string, number>> = {
  A: 600,
  B: 1200,
  C: 2400,
  D: 4800,
  E: 9600,
  F: 19200,
};

export function isBaudChar(c: string): c is BaudChar {
  return Object.hasOwn(MODE_C_BAUDS, c);
}

export type BaudMeaning =
  | { mode: 'C'; baud: number }
  | { mode: 'B'; baud: number }
  /** Mode A (no switch), or a reserved character: the reader stays at the initial rate. */
  | { mode: 'A' };

/** [IEC-1.4] What an identification's baud-rate character says. */
export function baudOf(c: string): BaudMeaning {
  if (isBaudChar(c)) return { mode: 'C', baud: MODE_C_BAUDS[c] };
  const b = MODE_B_BAUDS[c];
  return b === undefined ? { mode: 'A' } : { mode: 'B', baud: b };
}

/** [IEC-1.2] True when the 8-bit pattern (7 data bits + the parity bit as bit 7) has even parity. */
export function hasEvenParity(byte: number): boolean {
  let v = byte & 0xff;
  v ^= v >> 4;
  v ^= v >> 2;
  v ^= v >> 1;
  return (v & 1) === 0;
}

/** [IEC-1.2] A 7-bit character with its even-parity bit set as bit 7, as an 8N1 UART must send it. */
export function addParityBit(char: number): number {
  const c = char & 0x7f;
  return hasEvenParity(c) ? c : c | 0x80;
}

/** [IEC-1.2] Drops bit 7 (the parity bit as an 8N1 UART receives it). */
export function stripParityBit(byte: number): number {
  return byte & 0x7f;
}

/** [IEC-1.2] Every character of `chars` with its parity bit. */
export function addParity(chars: Uint8Array): Uint8Array {
  return chars.map(addParityBit);
}

/**
 * [IEC-1.2] The 7-bit characters of 8-bit received bytes, and the offsets whose parity was wrong: a
 * message with any such byte is spoilt (IEC-4.5), not repaired.
 */
export function stripParity(bytes: Uint8Array): { chars: Uint8Array; bad: number[] } {
  const bad: number[] = [];
  const chars = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (!hasEvenParity(b)) bad.push(i);
    chars[i] = b & 0x7f;
  }
  return { chars, bad };
}

/** [IEC-2.5] XOR of `bytes[from..to)` (callers pass: after the SOH/STX, up to and including the ETX). */
export function bcc(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let x = 0;
  for (let i = from; i < to; i++) x ^= bytes[i]!;
  return x & 0x7f;
}

/** Bytes of an ASCII string (callers check it is 7-bit first). */
export function ascii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0x7f;
  return out;
}

/** An ASCII string of bytes (latin1, so a stray 8-bit byte stays visible as itself). */
export function text(bytes: Uint8Array, from = 0, to = bytes.length): string {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(bytes[i]!);
  return s;
}

/** [IEC-3.3] Printable 7-bit ASCII, space to tilde. */
export function isPrintable(c: number): boolean {
  return c >= 0x20 && c <= 0x7e;
}
