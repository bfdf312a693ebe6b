// The frames of the serial line protocol, version 1, and the table of their fields. Rule numbers refer
// to ./PROTOCOL.md. The table drives both parsing and formatting (codec.ts); c/meterline.c holds the same
// table for firmware. Payload types mirror the MQTT contract, so a frame maps to a payload field by field.

import type { CommandOp, CommandPayload, ReplyData, ReplyErrorCode } from '../mqtt/schemas.ts';
import type { ReportedState, Sample } from '../mqtt/vocabulary.ts';

/** [SP-4.1] Carried in HELLO as `proto`. */
export const PROTOCOL_VERSION = 1;
/** [SP-2.2] Longest line, in bytes, without its terminator. */
export const MAX_LINE_BYTES = 1024;
/** [SP-1.1] Default serial settings: 115200 baud, 8N1, no flow control. */
export const DEFAULT_BAUD = 115_200;
/** [SP-5.3] Default keep-alive period; the link counts as silent after 3 periods. */
export const DEFAULT_KEEPALIVE_S = 5;
export const SILENCE_PERIODS = 3;
/** [SP-4.1] keepalive_s bounds: 0 would take the link down at once, more than a minute hides a dead meter. */
export const KEEPALIVE_RANGE = { min: 1, max: 60 } as const;

export const FRAME_TYPES = [
  'HELLO',
  'IDENT',
  'STATE',
  'TEL',
  'CMD',
  'ACK',
  'NAK',
  'PING',
  'PONG',
  'LOG',
  'ERR',
  'BYE',
] as const;
export type FrameType = (typeof FRAME_TYPES)[number];

/** [SP-6.2] Why a line was refused. */
export const PROTOCOL_ERROR_CODES = [
  'too_long',
  'bad_char',
  'no_checksum',
  'bad_checksum',
  'syntax',
  'unknown_type',
  'duplicate_field',
  'missing_field',
  'bad_value',
  'bad_version',
  'rejected',
  'wrong_device',
] as const;
export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number];

export const OPS = [
  'set_relay',
  'set_mode',
  'set_tariff',
  'set_active_tariff',
  'set_gateway',
  'set_wifi',
  'get_wifi',
  'recharge',
  'read',
] as const satisfies readonly CommandOp[];

export interface Property {
  property_id: string;
  context_type: 'cumulative' | 'instantaneous';
  unit: string;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface HelloFrame {
  type: 'HELLO';
  proto: number;
  device_id: string;
  model: 'basic' | 'full';
  firmware: string;
  has_relay: boolean;
  telemetry_period_s: number;
  keepalive_s: number;
  properties: Property[];
}
export type StateFrame = { type: 'STATE' } & ReportedState;
export type TelFrame = { type: 'TEL' } & Sample;
export type CmdFrame = { type: 'CMD'; seq: number } & DistributiveOmit<CommandPayload, 'v'>;
type AckData =
  | { op: 'read'; data: ReplyData<'read'> }
  | { op: 'get_wifi'; data: ReplyData<'get_wifi'> }
  | { op: 'recharge'; data: ReplyData<'recharge'> }
  | { op: Exclude<CommandOp, 'read' | 'get_wifi' | 'recharge'> };
export type AckFrame = { type: 'ACK'; seq: number; id: string } & AckData;
export interface NakFrame {
  type: 'NAK';
  seq: number;
  id: string;
  code: ReplyErrorCode;
  msg: string;
}
/** [SP-4.2] `ts`: the bridge's clock, for meters without a real-time clock [SP-5.9]. */
export interface IdentFrame {
  type: 'IDENT';
  ts?: number;
}
/** [SP-4.9] `ts` as on IDENT [SP-5.9]. */
export interface PongFrame {
  type: 'PONG';
  ts?: number;
}
export interface LogFrame {
  type: 'LOG';
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
}
export interface ErrFrame {
  type: 'ERR';
  code: ProtocolErrorCode;
  msg: string;
}

export type Frame =
  | HelloFrame
  | IdentFrame
  | StateFrame
  | TelFrame
  | CmdFrame
  | AckFrame
  | NakFrame
  | { type: 'PING' }
  | PongFrame
  | LogFrame
  | ErrFrame
  | { type: 'BYE' };

export type FrameOf<T extends FrameType> = Extract<Frame, { type: T }>;

// ---- the field table [SP-3, SP-4] ----

export type FieldType =
  | { kind: 'int'; min?: number; max?: number }
  | { kind: 'num' }
  | { kind: 'bool' }
  | { kind: 'str' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'props' };

export interface FieldSpec {
  /** The key on the wire. */
  key: string;
  /** Where the value sits in the frame object. */
  path: readonly string[];
  type: FieldType;
  optional: boolean;
}

const INT: FieldType = { kind: 'int' };
const NUM: FieldType = { kind: 'num' };
const BOOL: FieldType = { kind: 'bool' };
const STR: FieldType = { kind: 'str' };
const oneOf = (values: readonly string[]): FieldType => ({ kind: 'enum', values });

function field(key: string, type: FieldType, optional = false, path: readonly string[] = [key]): FieldSpec {
  return { key, path, type, optional };
}

const SAMPLE: readonly FieldSpec[] = [
  field('ts', INT),
  field('energy', NUM),
  field('active_power', NUM),
  field('voltage', NUM),
  field('current', NUM, true),
  field('power_factor', NUM, true),
  field('apparent_power', NUM, true),
  field('reactive_power', NUM, true),
  field('balance', INT),
];
const STATE: readonly FieldSpec[] = [
  field('ts', INT),
  field('mode', oneOf(['prepaid', 'postpaid', 'measurement', 'relay_off'])),
  field('relay_commanded', BOOL),
  field('relay_state', BOOL),
  field('eb_tariff', INT),
  field('dg_tariff', INT),
  field('active_tariff', INT),
  field('balance', INT),
  field('pg_enabled', BOOL),
  field('wifi_type', oneOf(['Primary', 'Secondary'])),
];
/** Nests a table under `data.<name>` with a key prefix: ACK read carries `r.*` and `s.*` [SP-4.6]. */
const nested = (fields: readonly FieldSpec[], prefix: string, name: string): FieldSpec[] =>
  fields.map((f) => field(`${prefix}.${f.key}`, f.type, f.optional, ['data', name, ...f.path]));
const inData = (f: FieldSpec): FieldSpec => field(f.key, f.type, f.optional, ['data', ...f.path]);

const SEQ = field('seq', INT);
const ID = field('id', STR);
const OP = field('op', oneOf(OPS));

/** Fields of each frame type, in the order senders write them [SP-2.6]. CMD and ACK add OP_FIELDS. */
export const FIELDS: Readonly<Record<FrameType, readonly FieldSpec[]>> = {
  HELLO: [
    field('proto', INT),
    field('device_id', STR),
    field('model', oneOf(['basic', 'full'])),
    field('firmware', STR),
    field('has_relay', BOOL),
    field('telemetry_period_s', NUM),
    field('keepalive_s', { kind: 'int', ...KEEPALIVE_RANGE }),
    field('properties', { kind: 'props' }),
  ],
  IDENT: [field('ts', INT, true)],
  STATE,
  TEL: SAMPLE,
  CMD: [SEQ, ID, OP],
  ACK: [SEQ, ID, OP],
  NAK: [
    SEQ,
    ID,
    field('code', oneOf(['invalid_argument', 'unsupported', 'busy', 'bad_request'])),
    field('msg', STR),
  ],
  PING: [],
  PONG: [field('ts', INT, true)],
  LOG: [field('level', oneOf(['debug', 'info', 'warn', 'error'])), field('msg', STR)],
  ERR: [field('code', oneOf(PROTOCOL_ERROR_CODES)), field('msg', STR)],
  BYE: [],
};

/** [SP-4.5] Arguments of each command op, named as in the MQTT contract [MC-8.4]. */
export const CMD_FIELDS: Readonly<Record<CommandOp, readonly FieldSpec[]>> = {
  set_relay: [field('on', BOOL)],
  set_mode: [STATE[1]!],
  set_tariff: [field('slot', oneOf(['eb', 'dg'])), field('paise', INT)],
  set_active_tariff: [field('tariff', INT)],
  set_gateway: [field('enabled', BOOL)],
  set_wifi: [field('ssid', STR), field('password', STR)],
  get_wifi: [],
  recharge: [field('amount', INT), field('transaction_id', STR)],
  read: [],
};

/** [SP-4.6] Reply data of each op [MC-8.6]; ops not listed carry none. */
export const ACK_FIELDS: Readonly<Record<CommandOp, readonly FieldSpec[]>> = {
  set_relay: [],
  set_mode: [],
  set_tariff: [],
  set_active_tariff: [],
  set_gateway: [],
  set_wifi: [],
  get_wifi: [
    field('ssid', STR),
    field('password', STR),
    field('rssi', INT),
    field('type', oneOf(['Primary', 'Secondary'])),
  ].map(inData),
  recharge: [field('applied', BOOL), field('balance', INT)].map(inData),
  read: [...nested(SAMPLE, 'r', 'readings'), ...nested(STATE, 's', 'state')],
};

/** The whole field list of a frame type, given its op for CMD and ACK. */
export function fieldsOf(type: FrameType, op?: CommandOp): readonly FieldSpec[] {
  const base = FIELDS[type];
  if (op === undefined) return base;
  if (type === 'CMD') return [...base, ...CMD_FIELDS[op]];
  if (type === 'ACK') return [...base, ...ACK_FIELDS[op]];
  return base;
}
