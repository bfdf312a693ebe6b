// Where the Home Assistant extension talks, pure (rules HA-1, HA-4, HA-6 in README.md): the discovery
// topics under the prefix, the per-meter state topic it maintains, the command topics HA publishes to,
// and the login the service issues for HA with exactly these topics.

import { DEVICE_ID_PATTERN } from '../../../firmware-protocol/mqtt/topics.ts';

/** HA's default discovery prefix. */
export const DEFAULT_PREFIX = 'homeassistant';
/** The login the service issues for Home Assistant; also its dynsec role. */
export const HA_USERNAME = 'meterstack-ha';
/** [HA-4] The extension's own topics, outside the meters' contract (`meterstack/v1/…`). */
export const HA_ROOT = 'meterstack/ha';

/** The entities HA may command, and their command topics' last level pair. */
export const COMMANDABLE = ['relay', 'mode'] as const;
export type Commandable = (typeof COMMANDABLE)[number];

/**
 * [HA-1] A prefix is one or more levels of [A-Za-z0-9_-], at most 64 characters: no wildcard, no `$`
 * (the broker's), no empty level. Returns why not, or null.
 */
export function prefixProblem(prefix: string): string | null {
  if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/.test(prefix) || prefix.length > 64)
    return `the discovery prefix must be levels of letters, digits, _ and - separated by /, at most 64 characters; got '${prefix}'`;
  if (prefix === 'meterstack' || prefix.startsWith('meterstack/'))
    return `the discovery prefix must not be under meterstack/ (the meters' and the service's topics); got '${prefix}'`;
  return null;
}

/**
 * [HA-1] HA's node id for a device: HA allows only [a-zA-Z0-9_-] there, device ids also have `.`. An
 * escape that no two ids share: `_` becomes `__`, `.` becomes `_d`.
 */
export function nodeIdOf(deviceId: string): string {
  return `meterstack_${deviceId.replaceAll('_', '__').replaceAll('.', '_d')}`;
}

/** [HA-1] `<prefix>/<component>/<node id>/<object id>/config`. */
export function discoveryTopic(prefix: string, component: string, deviceId: string, object: string): string {
  return `${prefix}/${component}/${nodeIdOf(deviceId)}/${object}/config`;
}

/** [HA-4] The per-meter state topic the extension maintains, retained JSON. */
export function stateTopic(deviceId: string): string {
  return `${HA_ROOT}/${deviceId}/state`;
}

/** [HA-6] Where HA sends a command for one meter's entity. */
export function commandTopic(deviceId: string, what: Commandable): string {
  return `${HA_ROOT}/${deviceId}/${what}/set`;
}

/** HA's birth and last will (its MQTT integration's default topic is `<prefix>/status`). */
export function statusTopic(prefix: string): string {
  return `${prefix}/status`;
}

/** [HA-6] The device and entity of a command topic, or null for any other topic. */
export function parseCommandTopic(topic: string): { deviceId: string; what: Commandable } | null {
  const m = /^meterstack\/ha\/([^/]+)\/(relay|mode)\/set$/.exec(topic);
  if (!m || !DEVICE_ID_PATTERN.test(m[1]!)) return null;
  return { deviceId: m[1]!, what: m[2] as Commandable };
}

/** The filters the extension's own connection subscribes to: commands and HA's birth. */
export function extensionFilters(prefix: string): string[] {
  return [...COMMANDABLE.map((what) => `${HA_ROOT}/+/${what}/set`), statusTopic(prefix)];
}
