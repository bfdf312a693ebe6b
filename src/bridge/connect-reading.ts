// [SP-5.13] The connect sample of MC-6.7 for a serial meter: each time the bridge announces its meter (the
// serial link came up, or the MQTT connection came back), it asks the meter for its present readings with
// a `read` CMD of its own and publishes the `r.*` of the ACK as one telemetry sample, after the held ones.
// The CMD's id is the bridge's, fresh each time (a meter answers a repeated id with its first reply,
// MC-8.8), and its ACK goes to the outbox, never to `reply`.

import { randomUUID } from 'node:crypto';
import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { AckFrame, CmdFrame, NakFrame } from '../../firmware-protocol/serial/frames.ts';
import type { SampleOrder } from './sample-order.ts';
import { telToSample } from './translate.ts';

/** Ids of the bridge's own `read` CMDs: MC-8.2's alphabet, 52 characters, never reused. */
const PREFIX = 'bridge-read:';

/** [SP-5.13] The bridge's own `read` CMD with seq `seq`. */
export function connectReadCmd(seq: number): CmdFrame {
  return { type: 'CMD', seq, id: `${PREFIX}${randomUUID()}`, op: 'read' };
}

export type ConnectSample =
  | { ok: true; sample: SamplePayload }
  | { ok: false; level: 'info' | 'warn'; reason: string };

/**
 * [SP-5.13] The sample in the answer to a connect `read`, checked as a TEL line would be [MC-7.4], and only
 * when later than the last sample taken [MC-7.3, MC-7.5]; `order` then takes it as the new last.
 */
export function connectSampleOf(frame: AckFrame | NakFrame, order: SampleOrder): ConnectSample {
  if (frame.type === 'NAK') return { ok: false, level: 'warn', reason: `NAK ${frame.code}: ${frame.msg}` };
  if (frame.op !== 'read') return { ok: false, level: 'warn', reason: `[SP-5.10] an ACK of ${frame.op}` };
  const sample = telToSample({ type: 'TEL', ...frame.data.readings });
  if (!sample.ok)
    return { ok: false, level: 'warn', reason: `[${sample.error.rule}] ${sample.error.message}` };
  // A sample fell due at this very instant, or the meter's clock is behind the last sample: the newest
  // sample already taken serves [MC-6.7]; an older one is never sent.
  if (order.check(sample.value).kind !== 'accept') {
    return {
      ok: false,
      level: 'info',
      reason: `the reading at ${sample.value.ts} is not newer than the last`,
    };
  }
  return { ok: true, sample: sample.value };
}
