// The MQTT payload codec, contract version 1: wire text <-> typed payloads, and payloads <-> the meter's
// domain types. Pure: no I/O, no clock. Rule numbers refer to ./CONTRACT.md.
import { isUtf8 } from 'node:buffer';
import { clip, type DecodeError, type DecodeResult, fail, formatIssues, schemaError } from './errors.ts';
import {
  CHANNEL_SCHEMAS,
  type CommandPayload,
  ID_PATTERN,
  type PayloadOf,
  REPLY_DATA_SCHEMAS,
  type ReplyData,
  type ReplyDataOp,
  type ReplyErrorCode,
  type ReplyPayload,
  type ServiceAnnouncement,
  ServiceAnnouncementSchema,
  type StatePayload,
  type TelemetryPayload,
} from './schemas.ts';
import { telemetryIfValid } from './telemetry-check.ts';
import { type Channel, CONTRACT_VERSION, parseTopic } from './topics.ts';
import type { CommandReply, MeterCommand, ReportedState, Sample } from './vocabulary.ts';

export type { DecodeError, DecodeResult } from './errors.ts';

/** [MC-3.1] Largest payload a receiver accepts: a full telemetry batch [MC-7.2] fits with room to spare. */
export const MAX_PAYLOAD_BYTES = 256 * 1024;
const TOO_BIG = `payload larger than ${MAX_PAYLOAD_BYTES} bytes`;

/** [MC-3.1] A payload is the UTF-8 text of one JSON object. */
export function parseObject(payload: Buffer | string): DecodeResult<Record<string, unknown>> {
  let text: string;
  if (typeof payload === 'string') {
    // Counting UTF-8 bytes costs a pass over the text; do it only when the length could exceed the limit.
    const tooBig =
      payload.length > MAX_PAYLOAD_BYTES ||
      (payload.length * 3 > MAX_PAYLOAD_BYTES && Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES);
    if (tooBig) return fail('MC-3.1', TOO_BIG);
    text = payload;
  } else {
    if (payload.length > MAX_PAYLOAD_BYTES) return fail('MC-3.1', TOO_BIG);
    if (!isUtf8(payload)) return fail('MC-3.1', 'payload is not valid UTF-8');
    text = payload.toString('utf8');
  }
  if (text.length === 0) return fail('MC-3.1', 'empty payload');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return fail('MC-3.1', `not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    return fail('MC-3.1', `expected a JSON object, got ${got}`);
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** Validates an already parsed object against a channel's schema: version first [MC-3.2, MC-3.3]. */
export function validate<C extends Channel>(
  channel: C,
  input: Record<string, unknown>,
): DecodeResult<PayloadOf<C>> {
  const v = input['v'];
  if (v === undefined) return fail('MC-3.2', `v: missing; this receiver speaks v${CONTRACT_VERSION}`);
  if (v !== CONTRACT_VERSION) {
    const got = clip(JSON.stringify(v));
    return fail(
      'MC-3.3',
      `v: unsupported contract version ${got}; this receiver speaks v${CONTRACT_VERSION}`,
    );
  }
  if (channel === 'telemetry') {
    // The receivers' hot path: checked by hand, the schema's value or the schema asked (telemetry-check.ts).
    const telemetry = telemetryIfValid(input);
    if (telemetry) return { ok: true, value: telemetry as PayloadOf<C> };
  }
  const result = CHANNEL_SCHEMAS[channel].safeParse(input);
  if (result.success) return { ok: true, value: result.data as PayloadOf<C> };
  return { ok: false, error: schemaError(channel, result.error.issues, input) };
}

/** Decodes one payload received on `channel`. Never throws [MC-9.3]. */
export function decode<C extends Channel>(channel: C, payload: Buffer | string): DecodeResult<PayloadOf<C>> {
  const parsed = parseObject(payload);
  return parsed.ok ? validate(channel, parsed.value) : parsed;
}

/** [MC-12.1] The service announcement, or why it is not one (then the broker is not meterstack's). */
export function decodeServiceAnnouncement(payload: Buffer | string): DecodeResult<ServiceAnnouncement> {
  const parsed = parseObject(payload);
  if (!parsed.ok) return parsed;
  const result = ServiceAnnouncementSchema.safeParse(parsed.value);
  if (result.success) return { ok: true, value: result.data };
  return fail('MC-12.1', formatIssues(result.error.issues, parsed.value, 'service'));
}

/**
 * The wire text of a payload. Validates first and throws a TypeError naming the rule, so a sender can never
 * publish what a receiver would reject. Unknown keys are dropped and keys come out in schema order.
 */
export function encode<C extends Channel>(channel: C, value: PayloadOf<C>): string {
  const result = CHANNEL_SCHEMAS[channel].safeParse(value);
  if (!result.success) {
    const error = schemaError(channel, result.error.issues, value);
    throw new TypeError(`cannot encode ${channel} payload: [${error.rule}] ${error.message}`);
  }
  return JSON.stringify(result.data);
}

export type DecodedMessage = {
  [C in Channel]: { deviceId: string; channel: C; payload: PayloadOf<C> };
}[Channel];

/** Decodes a message from its topic and payload: the topic names the device [MC-1.3, MC-1.4]. */
export function decodeMessage(topic: string, payload: Buffer | string): DecodeResult<DecodedMessage> {
  const parsed = parseTopic(topic);
  if (!parsed)
    return fail('MC-1.3', `topic "${clip(topic, 200)}" is not meterstack/v1/{device_id}/{channel}`);
  const decoded = decode(parsed.channel, payload);
  if (!decoded.ok) return decoded;
  const message = {
    deviceId: parsed.deviceId,
    channel: parsed.channel,
    payload: decoded.value,
  } as DecodedMessage;
  if (message.channel === 'info' && message.payload.device_id !== message.deviceId) {
    return fail('MC-1.4', `device_id: "${message.payload.device_id}" differs from the topic's`);
  }
  return { ok: true, value: message };
}

// ---- domain <-> wire ----

/** [MC-8.4] The cmd payload of a domain command: snake_case on the wire (transactionId -> transaction_id). */
export function commandToWire(id: string, cmd: MeterCommand): CommandPayload {
  if (cmd.op === 'recharge') {
    return { v: 1, id, op: 'recharge', amount: cmd.amount, transaction_id: cmd.transactionId };
  }
  return { v: 1, id, ...cmd };
}

/** The domain command carried by a decoded cmd payload. */
export function commandFromPayload(payload: CommandPayload): { id: string; command: MeterCommand } {
  const { id } = payload;
  switch (payload.op) {
    case 'set_relay':
      return { id, command: { op: payload.op, on: payload.on } };
    case 'set_mode':
      return { id, command: { op: payload.op, mode: payload.mode } };
    case 'set_tariff':
      return { id, command: { op: payload.op, slot: payload.slot, paise: payload.paise } };
    case 'set_active_tariff':
      return { id, command: { op: payload.op, tariff: payload.tariff } };
    case 'set_gateway':
      return { id, command: { op: payload.op, enabled: payload.enabled } };
    case 'set_wifi':
      return { id, command: { op: payload.op, ssid: payload.ssid, password: payload.password } };
    case 'recharge':
      return {
        id,
        command: { op: payload.op, amount: payload.amount, transactionId: payload.transaction_id },
      };
    case 'get_wifi':
    case 'read':
      return { id, command: { op: payload.op } };
  }
}

export type CommandFromWire =
  | { ok: true; id: string; command: MeterCommand }
  /**
   * `id` is the command id when it could be read; `reply` is then the rejection the meter must publish
   * [MC-9.1]. Both are null when no id could be read: the meter publishes nothing [MC-9.2].
   */
  | { ok: false; error: DecodeError; id: string | null; reply: ReplyPayload | null };

/** Meter side: decodes a cmd payload into a domain command, or says how to reject it. Never throws. */
export function commandFromWire(payload: Buffer | string): CommandFromWire {
  const parsed = parseObject(payload);
  if (!parsed.ok) return { ok: false, error: parsed.error, id: null, reply: null };
  const decoded = validate('cmd', parsed.value);
  if (decoded.ok) return { ok: true, ...commandFromPayload(decoded.value) };
  const { error } = decoded;
  const id = parsed.value['id'];
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) return { ok: false, error, id: null, reply: null };
  // [MC-8.3] An op this firmware does not know is `unsupported`, so new ops stay additive [MC-3.5].
  const unknownOp = error.rule === 'MC-8.3' && typeof parsed.value['op'] === 'string';
  const code: ReplyErrorCode = unknownOp ? 'unsupported' : 'bad_request';
  const message = clip(`[${error.rule}] ${error.message}`, 500);
  return { ok: false, error, id, reply: replyToWire(id, { ok: false, error: { code, message } }) };
}

/** A domain reply, or a wire-only rejection (`bad_request` exists only on the wire [MC-9.1]). */
export type WireReply = CommandReply | { ok: false; error: { code: ReplyErrorCode; message: string } };

/** [MC-8.5] The reply payload for command `id`. */
export function replyToWire(id: string, reply: WireReply): ReplyPayload {
  if (!reply.ok) {
    return { v: 1, id, ok: false, error: { code: reply.error.code, message: reply.error.message } };
  }
  return reply.data === undefined ? { v: 1, id, ok: true } : { v: 1, id, ok: true, data: reply.data };
}

/** Service side: checks a successful reply's `data` against what its op returns [MC-8.6]. */
export function decodeReplyData<Op extends ReplyDataOp>(op: Op, data: unknown): DecodeResult<ReplyData<Op>> {
  const result = REPLY_DATA_SCHEMAS[op].safeParse(data);
  if (result.success) return { ok: true, value: result.data as ReplyData<Op> };
  return fail('MC-8.6', formatIssues(result.error.issues, data, 'data'));
}

/** [MC-5.2] The state payload of a domain ReportedState. */
export function stateToWire(state: ReportedState): StatePayload {
  return { v: 1, ...state };
}

/** [MC-7.2] One telemetry payload carrying `samples` (1..1000, ascending ts). */
export function telemetryToWire(samples: readonly Sample[]): TelemetryPayload {
  return { v: 1, samples: [...samples] };
}

/** [MC-6.2] The availability will a meter registers when it connects: composed in advance, so no ts. */
export const AVAILABILITY_WILL: PayloadOf<'availability'> = { v: 1, online: false };
