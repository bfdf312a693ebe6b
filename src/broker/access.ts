// Who may publish and subscribe where. Pure functions of (principal, topic) so the rules are
// tested from a table; broker.ts only wires them into aedes' hooks.

import {
  type Channel,
  DEVICE_ID_PATTERN,
  METER_PUBLISHES,
  METER_SUBSCRIBES,
  PUBLISH_OPTIONS,
  parseTopic,
  SERVICE_TOPIC,
} from '../../firmware-protocol/mqtt/topics.ts';
import { covers, isValidFilter } from './topic-filter.ts';

/**
 * The identity `authenticate` returns for a set of credentials: the service (the only one that sends
 * commands), the operator's `admin` login (a read-only watcher, [MC-2.6]), or one meter.
 */
export type Principal =
  | { kind: 'service' }
  | { kind: 'admin' }
  | { kind: 'meter'; deviceId: string }
  | ScopedPrincipal;

/**
 * A login the service issues for a client of its own (Home Assistant, src/extensions/home-assistant):
 * it publishes only non-retained messages on topics its `publish` filters match, and subscribes only to
 * filters one of its `subscribe` filters covers (topic-filter.ts). Never a meter's topics unless listed.
 */
export interface ScopedPrincipal {
  kind: 'scoped';
  /** The login's name, for log lines. */
  name: string;
  publish: readonly string[];
  subscribe: readonly string[];
}

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
  return principal.kind !== 'meter' || DEVICE_ID_PATTERN.test(principal.deviceId);
}

/** [MC-2.7] Events (telemetry, cmd, reply) are never retained: a retained one would replay at every subscribe. */
function retainAllowed(channel: Channel, retain: boolean): boolean {
  return !retain || PUBLISH_OPTIONS[channel].retain;
}

/**
 * [MC-2.1] A meter publishes only on its own info/state/availability/telemetry/reply, [MC-2.6] only
 * the service publishes commands (the admin login publishes nothing), and [MC-2.7] nobody publishes
 * telemetry, a command or a reply with the retain flag.
 */
export function mayPublish(principal: Principal, topic: string, retain = false): boolean {
  if (isReserved(topic)) return false;
  if (principal.kind === 'admin') return false;
  // A scoped login's commands are events: never retained, so none replays at a later subscribe.
  if (principal.kind === 'scoped') return !retain && principal.publish.some((f) => covers(f, topic));
  const parsed = parseTopic(topic);
  if (principal.kind === 'service') return parsed === null || retainAllowed(parsed.channel, retain);
  return (
    parsed !== null &&
    parsed.deviceId === principal.deviceId &&
    METER_PUBLISHES.includes(parsed.channel) &&
    retainAllowed(parsed.channel, retain)
  );
}

/**
 * [MC-2.2] A meter subscribes only to its own cmd topic (and [MC-12.2] the service announcement), spelled out exactly: a filter with
 * wildcards never matches because parseTopic rejects `+` and `#` as a device id or channel.
 * [MC-2.6] The service and the admin watcher may subscribe to anything.
 */
export function maySubscribe(principal: Principal, filter: string): boolean {
  if (principal.kind === 'scoped')
    return isValidFilter(filter) && principal.subscribe.some((f) => covers(f, filter));
  if (principal.kind !== 'meter') return true;
  if (filter === SERVICE_TOPIC) return true; // [MC-12.2] whose broker this is, spelled out exactly
  const parsed = parseTopic(filter);
  return (
    parsed !== null && parsed.deviceId === principal.deviceId && METER_SUBSCRIBES.includes(parsed.channel)
  );
}

/** [MC-2.1] A meter's will may only announce its own availability; [MC-2.6] the admin has none. */
export function mayWill(principal: Principal, topic: string, retain = true): boolean {
  if (principal.kind !== 'meter') return mayPublish(principal, topic, retain);
  const parsed = parseTopic(topic);
  return parsed !== null && parsed.deviceId === principal.deviceId && parsed.channel === 'availability';
}
