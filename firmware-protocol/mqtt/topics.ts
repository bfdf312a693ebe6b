// MQTT topic contract, version 1. Rule numbers refer to firmware-protocol/mqtt/CONTRACT.md.

export const CONTRACT_VERSION = 1;
export const TOPIC_ROOT = `meterstack/v${CONTRACT_VERSION}`;

/** [MC-1.2] A device id is 1..64 characters of [A-Za-z0-9_.-]: safe in a topic level and a URL path. */
export const DEVICE_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

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

export function parseTopic(topic: string): ParsedTopic | null {
  const parts = topic.split('/');
  if (parts.length !== 4 || `${parts[0]}/${parts[1]}` !== TOPIC_ROOT) return null;
  const deviceId = parts[2]!;
  const channel = parts[3] as Channel;
  if (!DEVICE_ID_PATTERN.test(deviceId) || !CHANNELS.includes(channel)) return null;
  return { deviceId, channel };
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
