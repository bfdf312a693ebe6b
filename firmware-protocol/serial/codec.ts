// The serial line codec, protocol version 1: one line <-> one frame. Pure: no I/O, no clock, never throws
// on input. Rule numbers refer to ./PROTOCOL.md.

import type { CommandOp } from '../mqtt/schemas.ts';
import { crcHex } from './crc16.ts';
import {
  type FieldSpec,
  FRAME_TYPES,
  type Frame,
  type FrameType,
  fieldsOf,
  MAX_LINE_BYTES,
  OPS,
  PROTOCOL_VERSION,
  type ProtocolErrorCode,
} from './frames.ts';
import { describeType, formatRefusal, formatValue, parseValue } from './values.ts';

export interface ProtocolError {
  code: ProtocolErrorCode;
  /** The rule the line breaks, e.g. `SP-2.5`. */
  rule: string;
  message: string;
  /** The frame type, when the line got as far as naming a known one. */
  type?: FrameType;
  /** A CMD's seq and id, when they could be read: the receiver then answers NAK, not ERR [SP-6.3]. */
  seq?: number;
  id?: string;
}

export type ParseResult = { ok: true; frame: Frame } | { ok: false; error: ProtocolError };
/** [SP-2.3] An empty line is not an error and is not answered. */
export type LineResult = ParseResult | { ok: 'empty' };

const KEY = /^[a-z][a-z0-9_.]{0,31}$/;
const TYPE = /^[A-Z]{1,16}$/;
const CHECKSUM = /^[0-9A-Fa-f]{4}$/;

function fail(code: ProtocolErrorCode, rule: string, message: string, extra: Partial<ProtocolError> = {}) {
  return { ok: false as const, error: { code, rule, message, ...extra } };
}

/**
 * Parses one line, without its `\n` (a trailing `\r` is dropped [SP-2.1]). The checks run in the order of
 * PROTOCOL.md's error table, so each bad line gives exactly one, predictable error.
 */
export function parseLine(input: string): LineResult {
  const line = input.endsWith('\r') ? input.slice(0, -1) : input;
  if (line.length === 0) return { ok: 'empty' };
  if (line.length > MAX_LINE_BYTES) {
    return fail('too_long', 'SP-2.2', `line of ${line.length} bytes; at most ${MAX_LINE_BYTES}`);
  }
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return fail('bad_char', 'SP-2.1', `byte 0x${c.toString(16)} at ${i}`);
  }
  const star = line.lastIndexOf('*');
  if (star < 0 || !CHECKSUM.test(line.slice(star + 1))) {
    return fail('no_checksum', 'SP-2.5', 'line does not end in *XXXX');
  }
  const body = line.slice(0, star);
  const want = crcHex(body);
  const got = line.slice(star + 1).toUpperCase();
  if (got !== want) return fail('bad_checksum', 'SP-2.5', `checksum ${got}, computed ${want}`);
  return parseBody(body);
}

function parseBody(body: string): ParseResult {
  const tokens = body.split(' ');
  const type = tokens[0]!;
  if (!TYPE.test(type)) return fail('syntax', 'SP-2.4', `"${type.slice(0, 20)}" is not a frame type`);
  if (!(FRAME_TYPES as readonly string[]).includes(type)) {
    return fail('unknown_type', 'SP-4', `unknown frame type ${type}`);
  }
  const frameType = type as FrameType;
  const raw = new Map<string, string>();
  for (const token of tokens.slice(1)) {
    const eq = token.indexOf('=');
    const key = token.slice(0, eq);
    if (eq < 0 || !KEY.test(key)) {
      return fail('syntax', 'SP-2.4', `"${token.slice(0, 40)}" is not key=value`, { type: frameType });
    }
    if (raw.has(key)) return fail('duplicate_field', 'SP-2.6', `${key} given twice`, { type: frameType });
    raw.set(key, token.slice(eq + 1));
  }
  return buildFrame(frameType, raw);
}

function buildFrame(type: FrameType, raw: Map<string, string>): ParseResult {
  // A CMD's seq and id travel with any later error, so the receiver can NAK it [SP-6.3].
  const context: Partial<ProtocolError> = { type };
  if (type === 'CMD') {
    const seq = parseValue({ kind: 'int' }, raw.get('seq') ?? '');
    const id = parseValue({ kind: 'str' }, raw.get('id') ?? '');
    if (typeof seq === 'number' && typeof id === 'string' && id !== '') Object.assign(context, { seq, id });
  }
  let op: CommandOp | undefined;
  if (type === 'CMD' || type === 'ACK') {
    const wire = raw.get('op');
    if (wire === undefined) return fail('missing_field', 'SP-4.5', 'op: missing', context);
    if (!(OPS as readonly string[]).includes(wire)) {
      return fail('bad_value', 'SP-4.5', `op: unknown op ${wire.slice(0, 40)}`, context);
    }
    op = wire as CommandOp;
  }
  const frame: Record<string, unknown> = { type };
  for (const spec of fieldsOf(type, op)) {
    const wire = raw.get(spec.key);
    if (wire === undefined) {
      if (spec.optional) continue;
      return fail('missing_field', ruleOf(type), `${spec.key}: missing`, context);
    }
    const value = parseValue(spec.type, wire);
    if (value === null) {
      const message = `${spec.key}: "${wire.slice(0, 40)}" is not ${describeType(spec.type)}`;
      return fail('bad_value', spec.type.kind === 'str' ? 'SP-3.4' : ruleOf(type), message, context);
    }
    setPath(frame, spec.path, value);
  }
  if (type === 'HELLO' && frame['proto'] !== PROTOCOL_VERSION) {
    const message = `proto ${frame['proto']}; this receiver speaks ${PROTOCOL_VERSION}`;
    return fail('bad_version', 'SP-8.1', message, context);
  }
  // Unknown keys were ignored [SP-2.7].
  return { ok: true, frame: frame as Frame };
}

export type FormatResult = { ok: true; line: string } | { ok: false; message: string };

/**
 * The line of a frame, without its `\n`, or why it cannot be written: a field that is not well-typed, or a
 * line over MAX_LINE_BYTES [SP-2.2]. Never throws, so a sender can check before it commits to anything.
 */
export function tryFormatFrame(frame: Frame): FormatResult {
  const op = 'op' in frame ? frame.op : undefined;
  let body: string = frame.type;
  for (const spec of fieldsOf(frame.type, op)) {
    const value = getPath(frame, spec.path);
    if (value === undefined && spec.optional) continue;
    const wire = formatValue(spec.type, value);
    if (wire === null) {
      return { ok: false, message: `${spec.key} ${formatRefusal(spec.type, value)}` };
    }
    body += ` ${spec.key}=${wire}`;
  }
  const line = `${body}*${crcHex(body)}`;
  if (line.length > MAX_LINE_BYTES) {
    return { ok: false, message: `${line.length} bytes, at most ${MAX_LINE_BYTES} [SP-2.2]` };
  }
  return { ok: true, line };
}

/**
 * The line of a frame, without its `\n`. Throws a TypeError naming the field when the frame is not
 * well-typed or the line would exceed MAX_LINE_BYTES, so a sender can never write what a receiver refuses.
 * Callers holding input from outside (a command, a peer's text) use tryFormatFrame instead.
 */
export function formatFrame(frame: Frame): string {
  const result = tryFormatFrame(frame);
  if (!result.ok) throw new TypeError(`cannot format ${frame.type}: ${result.message}`);
  return result.line;
}

/** The frame type's rule in PROTOCOL.md's SP-4 table. */
function ruleOf(type: FrameType): string {
  return `SP-4.${FRAME_TYPES.indexOf(type) + 1}`;
}

function setPath(target: Record<string, unknown>, path: FieldSpec['path'], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

function getPath(source: object, path: FieldSpec['path']): unknown {
  let node: unknown = source;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
