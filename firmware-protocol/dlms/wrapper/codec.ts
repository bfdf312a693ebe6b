// The DLMS/COSEM wrapper (IEC 62056-47) that carries APDUs over TCP and UDP: an 8-byte header (version,
// source wPort, destination wPort, APDU length, each 16 bits big-endian) and the APDU. Pure: decoding
// never throws on input; encoding throws a TypeError only on a value our own code built wrongly. Rule
// numbers refer to ../WRAPPER.md.

/** [WR-2.2] The only wrapper version there is. */
export const WRAPPER_VERSION = 0x0001;
export const HEADER_BYTES = 8;
/** [WR-2.4] The length field's own limit. */
export const MAX_WPDU_APDU = 0xffff;
/** [WR-1.2] IANA's port for DLMS/COSEM over TCP and UDP. */
export const DLMS_PORT = 4059;

export interface Wpdu {
  /** [WR-2.3] The sender's wPort: a client SAP, or a server's logical device address. */
  source: number;
  dest: number;
  apdu: Uint8Array;
}

export type WrapperErrorCode = 'too_short' | 'bad_version' | 'empty' | 'too_long' | 'bad_length';

export interface WrapperError {
  code: WrapperErrorCode;
  rule: string;
  message: string;
}

export type WpduResult = { ok: true; pdu: Wpdu } | { ok: false; error: WrapperError };

type HeaderResult =
  | { ok: true; source: number; dest: number; length: number }
  | { ok: false; error: WrapperError };

const err = (code: WrapperErrorCode, rule: string, message: string) => ({
  ok: false as const,
  error: { code, rule, message },
});

const u16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;

/** [WR-2] Reads the header at the start of `bytes` (at least 8 of them), checking it against `maxApdu`. */
export function decodeHeader(bytes: Uint8Array, maxApdu = MAX_WPDU_APDU): HeaderResult {
  if (bytes.length < HEADER_BYTES)
    return err('too_short', 'WR-2.1', `${bytes.length} bytes; the header has ${HEADER_BYTES}`);
  const version = u16(bytes, 0);
  if (version !== WRAPPER_VERSION)
    return err('bad_version', 'WR-2.2', `version 0x${version.toString(16).padStart(4, '0')}, want 0x0001`);
  const length = u16(bytes, 6);
  if (length === 0) return err('empty', 'WR-2.4', 'a WPDU with no APDU');
  if (length > maxApdu)
    return err('too_long', 'WR-3.2', `APDU of ${length} bytes; this receiver takes at most ${maxApdu}`);
  return { ok: true, source: u16(bytes, 2), dest: u16(bytes, 4), length };
}

/** [WR-4.1] A UDP datagram holds exactly one WPDU. */
export function decodeDatagram(bytes: Uint8Array, maxApdu = MAX_WPDU_APDU): WpduResult {
  const header = decodeHeader(bytes, maxApdu);
  if (!header.ok) return header;
  if (bytes.length !== HEADER_BYTES + header.length) {
    return err(
      'bad_length',
      'WR-4.1',
      `length field ${header.length}, ${bytes.length - HEADER_BYTES} bytes follow the header`,
    );
  }
  return {
    ok: true,
    pdu: { source: header.source, dest: header.dest, apdu: new Uint8Array(bytes.subarray(HEADER_BYTES)) },
  };
}

export function encodeWpdu(pdu: Wpdu): Uint8Array {
  for (const [name, port] of [
    ['source', pdu.source],
    ['dest', pdu.dest],
  ] as const) {
    if (!Number.isInteger(port) || port < 0 || port > 0xffff)
      throw new TypeError(`${name} wPort ${port} is not 0..65535 [WR-2.3]`);
  }
  if (pdu.apdu.length < 1 || pdu.apdu.length > MAX_WPDU_APDU) {
    throw new TypeError(`APDU of ${pdu.apdu.length} bytes; 1..${MAX_WPDU_APDU} [WR-2.4]`);
  }
  const out = new Uint8Array(HEADER_BYTES + pdu.apdu.length);
  const put = (at: number, v: number) => {
    out[at] = v >>> 8;
    out[at + 1] = v & 0xff;
  };
  put(0, WRAPPER_VERSION);
  put(2, pdu.source);
  put(4, pdu.dest);
  put(6, pdu.apdu.length);
  out.set(pdu.apdu, HEADER_BYTES);
  return out;
}
