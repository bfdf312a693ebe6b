// What a meter link tells its adapter, which turns it into that adapter's own log lines. The link
// itself logs nothing: a virtual meter, a trace and each bridge have always said these things their way.

import type { WireReply } from '../../firmware-protocol/mqtt/codec.ts';
import type { DecodeError } from '../../firmware-protocol/mqtt/errors.ts';
import type { ServiceAnnouncement } from '../../firmware-protocol/mqtt/schemas.ts';
import type { Channel } from '../../firmware-protocol/mqtt/topics.ts';
import type { MeterCommand } from '../../firmware-protocol/mqtt/vocabulary.ts';

export type LinkEvent =
  /** Connected and subscribed to cmd [MC-6.3]; the announcement follows when the meter is known. */
  | { type: 'ready' }
  /** info, state and availability published [MC-6.3]; buffered telemetry follows. */
  | { type: 'announced' }
  /** The connection closed; `ready`/`announced`: what it was. mqtt.js reconnects every second. */
  | { type: 'lost'; ready: boolean; announced: boolean }
  /** An MQTT error; `refused` says why when it is a login no retry cures [SP-7.5], else null. */
  | { type: 'error'; error: Error; refused: string | null }
  /** With `backoff`: the connection ended (`error`: why, when known) and is tried again in `inMs`. */
  | { type: 'retrying'; inMs: number; error: Error | null }
  /** [MC-12.2] The service announced itself on this connection: the broker is meterstack's. */
  | { type: 'service'; announcement: ServiceAnnouncement }
  /** [MC-12.2] No announcement `waitedMs` after connecting: another broker, not meterstack's. */
  | { type: 'service_missing'; topic: string; waitedMs: number }
  /** CONNACK 3 "server unavailable": tried again after `retryMs`. */
  | { type: 'unavailable'; retryMs: number }
  | { type: 'subscribe_failed'; topic: string; error: Error }
  /** Announcing threw (the meter's info or state did not encode): a bug, logged. */
  | { type: 'announce_failed'; error: Error }
  /** [MC-9.1] [MC-9.2] a cmd that does not decode. */
  | { type: 'bad_command'; error: DecodeError }
  /** [MC-8.8] a repeated id answered from memory. */
  | { type: 'repeated'; id: string; op: MeterCommand['op'] }
  /** An answer published [MC-8.5]. */
  | { type: 'replied'; id: string; op: MeterCommand['op']; reply: WireReply }
  /** Handling a cmd threw or its answer failed: a bug, logged; the meter stays up. */
  | { type: 'command_failed'; error: Error }
  | { type: 'publish_failed'; channel: Exclude<Channel, 'cmd'>; error: Error }
  /** [MC-7.6] the outbox was full: `dropped` oldest samples now, `droppedSoFar` in all. */
  | { type: 'overflow'; dropped: number; droppedSoFar: number }
  /** A telemetry message that did not encode (a bug): its samples are lost. */
  | { type: 'telemetry_dropped'; samples: number; error: Error };

/** CONNACK codes (MQTT 3.1.1 table 3.1) that no retry cures, with what the operator should check. */
const FATAL_CONNACK: Readonly<Record<number, string>> = {
  1: 'the broker does not speak MQTT 3.1.1',
  2: 'the broker rejected the client id (it must be the device id, MC-2.5)',
  4: 'bad username or password: check --username (the device id) and --password / METERSTACK_BRIDGE_PASSWORD',
  5: 'not authorized: the broker does not accept this device id and password (is it a meterstack broker, and is the device provisioned as external?)',
};
export const SERVER_UNAVAILABLE = 3;

/** [SP-7.5] What to tell the operator when an MQTT error is a login refused for good, else null. */
export function refusedLogin(err: Error & { code?: unknown }): string | null {
  return typeof err.code === 'number' ? (FATAL_CONNACK[err.code] ?? null) : null;
}
