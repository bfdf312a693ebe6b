// The messages of IEC 62056-21 (mode C): one message's 7-bit characters <-> one Message. Pure: no I/O, no
// clock; decodeMessage never throws and does work linear in its input. encodeMessage throws a TypeError
// only for a Message no meter may send (a caller's bug). Rule numbers refer to ./PROTOCOL.md.

import { ACK, ascii, bcc, CR, ETX, isPrintable, LF, NAK, SOH, STX, text } from './chars.ts';
import { type DataLine, formatDataBlock, parseDataBlock } from './data-set.ts';

export type Message =
  /** [IEC-2.1] `/?address!CR LF`; address '' when the request names none. */
  | { kind: 'request'; address: string }
  /** [IEC-2.2] `/XXXZ[\W]ident CR LF`. */
  | { kind: 'identification'; manufacturer: string; baudChar: string; enhanced?: string; ident: string }
  /** [IEC-2.3] `ACK V Z Y CR LF`: protocol control, baud-rate and mode characters. */
  | { kind: 'option-select'; protocol: string; baudChar: string; mode: string }
  /** [IEC-2.4] The readout `STX block ! CR LF ETX BCC`. */
  | { kind: 'data'; lines: DataLine[] }
  /** [IEC-2.9] A programming-mode answer `STX block ETX BCC` (decoded only, to be refused). */
  | { kind: 'answer'; lines: DataLine[] }
  /** [IEC-2.8] `SOH C D [STX data] ETX BCC`: P0/P1, W1, R1, E2, ...; decoded only, to be refused. */
  | { kind: 'command'; command: string; type: string; data?: string }
  /** [IEC-2.6] `SOH B 0 ETX BCC`. */
  | { kind: 'break' }
  /** [IEC-2.7] A lone ACK or NAK. */
  | { kind: 'ack' }
  | { kind: 'nak' };
export type MessageKind = Message['kind'];

export const ERROR_CODES = [
  'empty',
  'bad_char',
  'syntax',
  'too_long',
  'no_bcc',
  'bad_bcc',
  'unknown_start',
  'bad_data',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface DecodeError {
  code: ErrorCode;
  /** The rule broken, e.g. `IEC-2.5`. */
  rule: string;
  message: string;
}
export type DecodeResult = { ok: true; message: Message } | { ok: false; error: DecodeError };

/** [IEC-2.1] A device address: up to 32 of 0-9, A-Z, a-z and space. */
export const DEVICE_ADDRESS = /^[0-9A-Za-z ]{0,32}$/;
/** [IEC-2.2] Three letters; a lower-case third one says the meter can answer within 20 ms. */
const MANUFACTURER = /^[A-Za-z]{3}$/;
/** [IEC-2.2] The identification proper: 1 to 16 printable characters other than `/` and `!`. */
const IDENT = /^[\x20-\x2e\x30-\x7e]{1,16}$/;
const NOT_SLASH_BANG = /^[\x20\x22-\x2e\x30-\x7e]{1,16}$/;
/** The longest message decodeMessage looks at; splitters hold less (IEC-4.2). */
export const MAX_MESSAGE = 1 << 16;

const fail = (code: ErrorCode, rule: string, message: string) =>
  ({ ok: false, error: { code, rule, message } }) as const;
const ok = (message: Message) => ({ ok: true, message }) as const;

/**
 * Decodes one message as a splitter cut it (IEC-4.1): 7-bit characters, parity already checked and
 * stripped where the link has it (IEC-1.2). Checks run in PROTOCOL.md's error-table order.
 */
export function decodeMessage(bytes: Uint8Array): DecodeResult {
  if (bytes.length === 0) return fail('empty', 'IEC-4.1', 'no bytes');
  if (bytes.length > MAX_MESSAGE) return fail('too_long', 'IEC-4.2', `${bytes.length} bytes`);
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! > 0x7f)
      return fail('bad_char', 'IEC-1.2', `8-bit byte 0x${bytes[i]!.toString(16)} at ${i}`);
  }
  const first = bytes[0]!;
  if (first === 0x2f) return decodeSlash(bytes);
  if (first === ACK && bytes.length === 1) return ok({ kind: 'ack' });
  if (first === NAK)
    return bytes.length === 1 ? ok({ kind: 'nak' }) : fail('syntax', 'IEC-2.7', 'NAK is alone');
  if (first === ACK) return decodeOptionSelect(bytes);
  if (first === SOH || first === STX) return decodeBlock(bytes);
  return fail('unknown_start', 'IEC-4.1', `a message cannot start with 0x${first.toString(16)}`);
}

/** Bytes without the trailing CR LF, or null when they do not end in one. */
function line(bytes: Uint8Array): string | null {
  const n = bytes.length;
  if (n < 2 || bytes[n - 2] !== CR || bytes[n - 1] !== LF) return null;
  for (let i = 0; i < n - 2; i++) if (!isPrintable(bytes[i]!)) return null;
  return text(bytes, 0, n - 2);
}

function decodeSlash(bytes: Uint8Array): DecodeResult {
  const s = line(bytes);
  if (s === null) return fail('syntax', 'IEC-2.1', 'a "/" message is printable characters ended by CR LF');
  if (s.startsWith('/?')) {
    if (!s.endsWith('!')) return fail('syntax', 'IEC-2.1', 'a request ends in "!" CR LF');
    const address = s.slice(2, -1);
    if (!DEVICE_ADDRESS.test(address)) {
      return fail('bad_char', 'IEC-2.1', 'a device address is up to 32 of 0-9, A-Z, a-z and space');
    }
    return ok({ kind: 'request', address });
  }
  const manufacturer = s.slice(1, 4);
  const baudChar = s.slice(4, 5);
  if (!MANUFACTURER.test(manufacturer)) return fail('syntax', 'IEC-2.2', 'a manufacturer is three letters');
  if (baudChar === '' || !isPrintable(baudChar.charCodeAt(0)) || '/!\\'.includes(baudChar)) {
    return fail('syntax', 'IEC-2.2', 'no baud-rate character');
  }
  let rest = s.slice(5);
  let enhanced: string | undefined;
  if (rest.startsWith('\\')) {
    enhanced = rest.slice(1, 2);
    rest = rest.slice(2);
    if (!NOT_SLASH_BANG.test(enhanced) || enhanced.length !== 1) {
      return fail('syntax', 'IEC-2.2', '"\\" is followed by one enhanced-identification character');
    }
  }
  if (rest.length > 16) return fail('too_long', 'IEC-2.2', `identification of ${rest.length} characters`);
  if (!IDENT.test(rest) || rest.includes('!')) {
    return fail('syntax', 'IEC-2.2', 'an identification is 1 to 16 printable characters, not "/" or "!"');
  }
  const m: Message = { kind: 'identification', manufacturer, baudChar, ident: rest };
  if (enhanced !== undefined) m.enhanced = enhanced;
  return ok(m);
}

function decodeOptionSelect(bytes: Uint8Array): DecodeResult {
  const s = line(bytes.subarray(1));
  if (s === null || !/^[0-9A-Za-z]{3}$/.test(s)) {
    return fail('syntax', 'IEC-2.3', 'an option select is ACK V Z Y CR LF, each a digit or a letter');
  }
  return ok({ kind: 'option-select', protocol: s[0]!, baudChar: s[1]!, mode: s[2]! });
}

/** [IEC-2.4, IEC-2.5, IEC-2.6, IEC-2.8, IEC-2.9] SOH- and STX-framed messages. */
function decodeBlock(bytes: Uint8Array): DecodeResult {
  const n = bytes.length;
  const etx = bytes.indexOf(ETX);
  if (etx < 0 || etx !== n - 2) {
    return fail('no_bcc', 'IEC-2.5', 'a block ends with ETX and one block check character');
  }
  const want = bcc(bytes, 1, etx + 1);
  if (bytes[n - 1] !== want) {
    return fail('bad_bcc', 'IEC-2.5', `BCC 0x${bytes[n - 1]!.toString(16)}, computed 0x${want.toString(16)}`);
  }
  if (bytes[0] === STX) return decodeData(bytes.subarray(1, etx));
  return decodeCommand(bytes.subarray(1, etx));
}

function decodeData(body: Uint8Array): DecodeResult {
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (!isPrintable(c) && c !== CR && c !== LF) {
      return fail('bad_char', 'IEC-3.3', `control character 0x${c.toString(16)} in a data block`);
    }
  }
  const s = text(body);
  const readout = s.endsWith('!\r\n');
  const block = readout ? s.slice(0, -3) : s;
  if (block.includes('!')) return fail('syntax', 'IEC-2.4', '"!" inside a data block');
  const parsed = parseDataBlock(block);
  if (!parsed.ok) return fail('bad_data', parsed.error.rule, parsed.error.message);
  return ok({ kind: readout ? 'data' : 'answer', lines: parsed.value });
}

function decodeCommand(body: Uint8Array): DecodeResult {
  // body: C D [STX data], all before the ETX.
  if (body.length < 2) return fail('syntax', 'IEC-2.8', 'a command is SOH C D [STX data] ETX BCC');
  const command = String.fromCharCode(body[0]!);
  const type = String.fromCharCode(body[1]!);
  if (!/^[A-Z]$/.test(command) || !/^[0-9]$/.test(type)) {
    return fail('syntax', 'IEC-2.8', 'a command is a capital letter and a digit');
  }
  if (body.length === 2) {
    return command === 'B' && type === '0' ? ok({ kind: 'break' }) : ok({ kind: 'command', command, type });
  }
  if (body[2] !== STX) return fail('syntax', 'IEC-2.8', "a command's data follows STX");
  for (let i = 3; i < body.length; i++) {
    if (!isPrintable(body[i]!))
      return fail('bad_char', 'IEC-2.8', `0x${body[i]!.toString(16)} in a command's data`);
  }
  return ok({ kind: 'command', command, type, data: text(body, 3) });
}

/** [IEC-2] The characters of a message, 7-bit (the I/O layer adds parity where its UART does not). */
export function encodeMessage(m: Message): Uint8Array {
  switch (m.kind) {
    case 'request':
      if (!DEVICE_ADDRESS.test(m.address)) throw new TypeError(`IEC-2.1: bad device address ${m.address}`);
      return ascii(`/?${m.address}!\r\n`);
    case 'identification': {
      if (!MANUFACTURER.test(m.manufacturer)) throw new TypeError('IEC-2.2: a manufacturer is three letters');
      if (m.baudChar.length !== 1 || '/!\\'.includes(m.baudChar) || !isPrintable(m.baudChar.charCodeAt(0))) {
        throw new TypeError('IEC-2.2: bad baud-rate character');
      }
      if (!IDENT.test(m.ident)) throw new TypeError('IEC-2.2: bad identification');
      if (m.enhanced !== undefined && (m.enhanced.length !== 1 || !NOT_SLASH_BANG.test(m.enhanced))) {
        throw new TypeError('IEC-2.2: bad enhanced-identification character');
      }
      const enhanced = m.enhanced === undefined ? '' : `\\${m.enhanced}`;
      return ascii(`/${m.manufacturer}${m.baudChar}${enhanced}${m.ident}\r\n`);
    }
    case 'option-select': {
      const chars = m.protocol + m.baudChar + m.mode;
      if (!/^[0-9A-Za-z]{3}$/.test(chars)) throw new TypeError('IEC-2.3: V, Z and Y are digits or letters');
      return Uint8Array.of(ACK, ...ascii(`${chars}\r\n`));
    }
    case 'data':
      return block(STX, `${formatDataBlock(m.lines)}!\r\n`);
    case 'answer':
      return block(STX, formatDataBlock(m.lines));
    case 'command': {
      if (!/^[A-Z]$/.test(m.command) || !/^[0-9]$/.test(m.type)) throw new TypeError('IEC-2.8: bad command');
      if (m.data !== undefined && ![...m.data].every((c) => isPrintable(c.charCodeAt(0)))) {
        throw new TypeError('IEC-2.8: command data is printable');
      }
      const data = m.data === undefined ? '' : `\x02${m.data}`;
      return block(SOH, `${m.command}${m.type}${data}`);
    }
    case 'break':
      return block(SOH, 'B0');
    case 'ack':
      return Uint8Array.of(ACK);
    case 'nak':
      return Uint8Array.of(NAK);
  }
}

/** [IEC-2.5] start, body, ETX, BCC over body and ETX. */
function block(start: number, body: string): Uint8Array {
  const out = new Uint8Array(body.length + 3);
  out[0] = start;
  out.set(ascii(body), 1);
  out[body.length + 1] = ETX;
  out[body.length + 2] = bcc(out, 1, body.length + 2);
  return out;
}
