// [HA-6] A command from Home Assistant, pure: its topic and payload read into one twin command, or the
// reason it is refused. Anything may arrive here (the HA login is a client like any other): a payload is
// short ASCII or it is refused before anything else looks at it.

import type { TwinCommand } from '../../devices/types.ts';
import { MODES } from './discovery.ts';
import { parseCommandTopic } from './topics.ts';

/** Longer than any payload HA sends for these entities (`relay_off` is the longest). */
export const MAX_PAYLOAD_BYTES = 32;

export type HaRefusal = 'topic' | 'retained' | 'too_long' | 'payload';

export type ParsedCommand =
  | { ok: true; deviceId: string; command: TwinCommand }
  | { ok: false; reason: HaRefusal; deviceId?: string };

export function parseCommand(topic: string, payload: Buffer, retain: boolean): ParsedCommand {
  const target = parseCommandTopic(topic);
  if (!target) return { ok: false, reason: 'topic' };
  const { deviceId } = target;
  // A retained command would be carried out again at every subscribe (as MC-2.7 says of the meters').
  if (retain) return { ok: false, reason: 'retained', deviceId };
  if (payload.length > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'too_long', deviceId };
  const text = payload.toString('latin1');
  if (target.what === 'relay') {
    if (text === 'ON' || text === 'OFF')
      return { ok: true, deviceId, command: { op: 'set_relay', on: text === 'ON' } };
    return { ok: false, reason: 'payload', deviceId };
  }
  if (MODES.includes(text))
    return { ok: true, deviceId, command: { op: 'set_mode', mode: text as 'prepaid' } };
  return { ok: false, reason: 'payload', deviceId };
}

/** A payload as a log line may show it: printable ASCII, at most 40 characters. */
export function showPayload(payload: Buffer): string {
  const shown = payload
    .subarray(0, 40)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '?');
  return payload.length > 40 ? `${shown}… (${payload.length} bytes)` : shown;
}
