// Frames <-> MQTT payloads [SP-7]. Pure. Every payload built from a meter's line is checked against the
// MQTT contract here, so the bridge never publishes what the service would reject [SP-6.5].

import { type DecodeResult, validate } from '../../firmware-protocol/mqtt/codec.ts';
import type {
  CommandPayload,
  InfoPayload,
  ReplyPayload,
  SamplePayload,
  StatePayload,
} from '../../firmware-protocol/mqtt/schemas.ts';
import { SampleSchema } from '../../firmware-protocol/mqtt/schemas.ts';
import type {
  AckFrame,
  CmdFrame,
  HelloFrame,
  NakFrame,
  StateFrame,
  TelFrame,
} from '../../firmware-protocol/serial/frames.ts';

/** [SP-7.1] HELLO -> info: every field but proto and keepalive_s. */
export function helloToInfo(frame: HelloFrame): DecodeResult<InfoPayload> {
  const { type: _t, proto: _p, keepalive_s: _k, ...info } = frame;
  return validate('info', { v: 1, ...info });
}

/** [SP-7.1] STATE -> state. */
export function stateToPayload(frame: StateFrame): DecodeResult<StatePayload> {
  const { type: _t, ...state } = frame;
  return validate('state', { v: 1, ...state });
}

/** [SP-7.1] TEL -> one sample [MC-7.4]; the batch is checked again when published. */
export function telToSample(frame: TelFrame): DecodeResult<SamplePayload> {
  const { type: _t, ...sample } = frame;
  const result = SampleSchema.safeParse(sample);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0]!;
  return { ok: false, error: { rule: 'MC-7.4', message: `${issue.path.join('.')}: ${issue.message}` } };
}

/** [SP-7.1] ACK / NAK -> reply, with the line's id [MC-8.5]. */
export function replyOf(frame: AckFrame | NakFrame): DecodeResult<ReplyPayload> {
  if (frame.type === 'NAK') {
    const message = frame.msg.slice(0, 512);
    return validate('reply', { v: 1, id: frame.id, ok: false, error: { code: frame.code, message } });
  }
  const data = 'data' in frame ? frame.data : undefined;
  return validate(
    'reply',
    data === undefined ? { v: 1, id: frame.id, ok: true } : { v: 1, id: frame.id, ok: true, data },
  );
}

/** [SP-7.3] A decoded MQTT cmd -> CMD line frame with the bridge's seq. */
export function cmdFrame(seq: number, payload: CommandPayload): CmdFrame {
  const { v: _v, ...rest } = payload;
  return { type: 'CMD', seq, ...rest } as CmdFrame;
}
