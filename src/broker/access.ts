// Who may publish and subscribe where. Pure functions of (principal, topic) so the rules are
// tested from a table; broker.ts only wires them into aedes' hooks.

import {
  DEVICE_ID_PATTERN,
  METER_PUBLISHES,
  METER_SUBSCRIBES,
  parseTopic,
} from '../../firmware-protocol/mqtt/topics.ts';

/** The identity `authenticate` returns for a set of credentials. */
export type Principal = { kind: 'service' } | { kind: 'meter'; deviceId: string };

/** Topics beginning with `$` are the broker's own ([MQTT-4.7.2-1]); aedes reserves `$SYS/`. */
function isReserved(topic: string): boolean {
  return topic.startsWith('$');
}

/**
 * [MC-1.2] A meter's id must be a valid device id. Anything else could smuggle `+`, `#` or `/`
 * into the topics built from it, and `meterstack/v1/+/cmd` as "its own" cmd topic would let
 * it read every meter's commands.
 */
export function isValidPrincipal(principal: Principal): boolean {
  return principal.kind === 'service' || DEVICE_ID_PATTERN.test(principal.deviceId);
}

/** [MC-2.1] A meter publishes only on its own info/state/availability/telemetry/reply. */
export function mayPublish(principal: Principal, topic: string): boolean {
  if (isReserved(topic)) return false;
  if (principal.kind === 'service') return true;
  const parsed = parseTopic(topic);
  return (
    parsed !== null && parsed.deviceId === principal.deviceId && METER_PUBLISHES.includes(parsed.channel)
  );
}

/**
 * [MC-2.2] A meter subscribes only to its own cmd topic, spelled out exactly: a filter with
 * wildcards never matches because parseTopic rejects `+` and `#` as a device id or channel.
 */
export function maySubscribe(principal: Principal, filter: string): boolean {
  if (principal.kind === 'service') return true;
  const parsed = parseTopic(filter);
  return (
    parsed !== null && parsed.deviceId === principal.deviceId && METER_SUBSCRIBES.includes(parsed.channel)
  );
}

/** [MC-2.1] A meter's will may only announce its own availability. */
export function mayWill(principal: Principal, topic: string): boolean {
  if (principal.kind === 'service') return mayPublish(principal, topic);
  const parsed = parseTopic(topic);
  return parsed !== null && parsed.deviceId === principal.deviceId && parsed.channel === 'availability';
}
