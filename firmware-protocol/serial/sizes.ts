// Worst-case line lengths of each frame under the MQTT contract's limits [SP-2.8], and the one check a
// sender of untrusted text needs before it frames a command [SP-4.13]. Pure; PROTOCOL.md's table of
// worst cases is checked against worstCaseBytes() by sizes.test.ts.

import type { CommandOp } from '../mqtt/schemas.ts';
import { tryFormatFrame } from './codec.ts';
import {
  type CmdFrame,
  type FieldSpec,
  FRAME_TYPES,
  type FrameType,
  fieldsOf,
  MAX_LINE_BYTES,
  OPS,
} from './frames.ts';
import { escapeString } from './values.ts';

/** A value a contract leaves unbounded (LOG and ERR `msg`): the sender shortens it [SP-2.8]. */
export const UNBOUNDED = Number.POSITIVE_INFINITY;

/** `%XX` per byte, 4 bytes per character: the wire length of n characters of arbitrary text [SP-3.4]. */
const anyText = (chars: number) => chars * 4 * 3;

/** Longest wire text of each string field, from the contract's limits. */
const STR_WIRE: Readonly<Record<string, number>> = {
  device_id: 64, // [MC-1.2] 64 characters that are all written as themselves
  id: 64, // [MC-8.2]
  transaction_id: 64, // [MC-8.2]
  firmware: anyText(64), // [MC-4.2]
  ssid: anyText(32), // [MC-8.4]
  password: anyText(64), // [MC-8.4]; ACK get_wifi carries the same two [MC-8.6]
};
/** Longest text of an int field where the protocol bounds it more tightly than ±(2^53 − 1). */
const INT_WIRE: Readonly<Record<string, number>> = {
  seq: 5, // [SP-5.5] 1..65535
  rssi: 4, // [MC-8.6] -127..0
};
const MAX_INT = '-9007199254740991'.length; // [SP-3.1]
/** The longest text Number#toString gives for a finite double, e.g. -2.2250738585072014e-308 [SP-3.2]. */
const MAX_NUM = 24;
/** [MC-4.3] at most 32 properties of `id;context;unit`, the unit at most 16 characters. */
const MAX_PROPS = 32 * (64 + 1 + 'instantaneous'.length + 1 + anyText(16)) + 31;

function fieldWire(spec: FieldSpec, type: FrameType, op?: CommandOp): number {
  const t = spec.type;
  if (spec.key === 'op' && op !== undefined) return op.length;
  switch (t.kind) {
    case 'int':
      if (t.min !== undefined && t.max !== undefined) {
        return Math.max(String(t.min).length, String(t.max).length);
      }
      return INT_WIRE[spec.key] ?? MAX_INT;
    case 'num':
      return MAX_NUM;
    case 'bool':
      return 1;
    case 'enum':
      return Math.max(...t.values.map((v) => v.length));
    case 'props':
      return MAX_PROPS;
    case 'str':
      if (spec.key === 'msg') return type === 'NAK' ? anyText(512) : UNBOUNDED; // [MC-8.5]
      return STR_WIRE[spec.key] ?? UNBOUNDED;
  }
}

/** [SP-2.8] The longest line (checksum included, LF excluded) a frame can take within the contract. */
export function worstCaseBytes(type: FrameType, op?: CommandOp): number {
  let n = type.length + '*XXXX'.length;
  for (const spec of fieldsOf(type, op)) n += 1 + spec.key.length + 1 + fieldWire(spec, type, op);
  return n;
}

/** Every frame type, CMD and ACK once per op, with its worst case: the rows of PROTOCOL.md's table. */
export function worstCaseTable(): { frame: string; bytes: number }[] {
  return FRAME_TYPES.flatMap((type) =>
    type === 'CMD' || type === 'ACK'
      ? OPS.map((op) => ({ frame: `${type} ${op}`, bytes: worstCaseBytes(type, op) }))
      : [{ frame: type, bytes: worstCaseBytes(type) }],
  );
}

/**
 * [SP-4.13] Escaped bytes `ssid` and `password` may take together: what is left of a line for them in the
 * longest `ACK get_wifi` that will carry them back (seq 65535, a 64-character id, rssi=-127,
 * type=Secondary), so a network a meter accepts can always be read back.
 */
export const MAX_WIFI_WIRE_BYTES =
  MAX_LINE_BYTES - (worstCaseBytes('ACK', 'get_wifi') - STR_WIRE['ssid']! - STR_WIRE['password']!);

/**
 * [SP-4.13] Why a command cannot go to a meter as a line, or null when it can. Checked before anything is
 * sent: the bridge answers such a command itself with `invalid_argument` and the reason. Beyond the
 * set_wifi budget, anything formatFrame would refuse counts, e.g. a lone surrogate in a string [SP-3.4].
 */
export function commandLineProblem(frame: CmdFrame): string | null {
  if (frame.op === 'set_wifi') {
    const bytes = escapeString(frame.ssid).length + escapeString(frame.password).length;
    if (bytes > MAX_WIFI_WIRE_BYTES) {
      return (
        `ssid and password take ${bytes} bytes on the meter's serial line (a byte outside ` +
        `A-Z a-z 0-9 . _ ~ : - is sent as 3); at most ${MAX_WIFI_WIRE_BYTES}`
      );
    }
  }
  const formatted = tryFormatFrame(frame);
  return formatted.ok ? null : formatted.message;
}
