// MQTT topic contract, version 1. Rule numbers refer to firmware-protocol/mqtt/CONTRACT.md.

export const CONTRACT_VERSION = 1;
export const TOPIC_ROOT = `meterstack/v${CONTRACT_VERSION}`;

/** [MC-1.2] A device id is 1..64 characters of [A-Za-z0-9_.-]: safe in a topic level and a URL path. */
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * [MC-1.5] The service's own broker logins: the admin watcher, the service itself, Home Assistant's. A
 * device id is a meter's login, and a broker matches these names first, so a device with one of them
 * could never log in: they are refused when a device is made.
 */
export const SERVICE_LOGINS = ['admin', 'meterstack-service', 'meterstack-ha'] as const;
export const SERVICE_LOGIN_SET: ReadonlySet<string> = new Set(SERVICE_LOGINS);

export const CHANNELS = ['info', 'state', 'availability', 'telemetry', 'cmd', 'reply'] as const;
export type Channel = (typeof CHANNELS)[number];

/** [MC-1.1] Every topic is `meterstack/v1/{device_id}/{channel}`. */
export function topicFor(deviceId: string, channel: Channel): string {
  return `${TOPIC_ROOT}/${deviceId}/${channel}`;
}

export interface ParsedTopic {
  deviceId: string;
  channel: Channel;
}

const PREFIX = `${TOPIC_ROOT}/`;
const CHANNEL_SET: ReadonlySet<string> = new Set(CHANNELS);

/** [MC-1.1] [MC-1.3] The device and channel of a topic of exactly four levels, or null. Every message's. */
export function parseTopic(topic: string): ParsedTopic | null {
  // By index, not split('/'): no array and no joined string for each of thousands of messages a second.
  if (!topic.startsWith(PREFIX)) return null;
  const slash = topic.indexOf('/', PREFIX.length);
  if (slash === -1 || topic.indexOf('/', slash + 1) !== -1) return null;
  const deviceId = topic.slice(PREFIX.length, slash);
  const channel = topic.slice(slash + 1);
  if (!CHANNEL_SET.has(channel) || !DEVICE_ID_PATTERN.test(deviceId)) return null;
  return { deviceId, channel: channel as Channel };
}

/**
 * [MC-12.1] Where the service announces itself, retained: the one topic outside MC-1.1's four levels, so
 * no device's topic can be it. [MC-12.2] A meter may subscribe to it, exactly as spelled here.
 */
export const SERVICE_TOPIC = `${TOPIC_ROOT}/service`;

/** Channels a meter publishes on (its own id only) [MC-2.1]. */
export const METER_PUBLISHES: readonly Channel[] = ['info', 'state', 'availability', 'telemetry', 'reply'];
/** Channels a meter subscribes to (its own id only) [MC-2.2]. */
export const METER_SUBSCRIBES: readonly Channel[] = ['cmd'];

/** [MC-2.3] The service publishes only commands, to any meter. */
export const SERVICE_PUBLISHES: readonly Channel[] = ['cmd'];

/** [MC-2.3] The filter the service subscribes with to hear `channel` from every meter. */
export function allDevicesFilter(channel: Channel): string {
  return `${TOPIC_ROOT}/+/${channel}`;
}

/**
 * QoS and retain flag of every publish [MC-4.1, MC-5.1, MC-6.1, MC-7.1, MC-8.1, MC-8.5]. Retained channels
 * describe the meter now; telemetry, commands and replies are events and must never be retained.
 */
export const PUBLISH_OPTIONS: Readonly<Record<Channel, { qos: 1; retain: boolean }>> = {
  info: { qos: 1, retain: true },
  state: { qos: 1, retain: true },
  availability: { qos: 1, retain: true },
  telemetry: { qos: 1, retain: false },
  cmd: { qos: 1, retain: false },
  reply: { qos: 1, retain: false },
};
