// What the twins' connection subscribes to, and its bounded unsubscribe at stop.

import type { MqttClient } from 'mqtt';
import { TOPIC_ROOT } from '../../firmware-protocol/mqtt/topics.ts';

const UNSUBSCRIBE_TIMEOUT_MS = 2_000;

/**
 * [MC-2.3] The service's session is clean, so QoS 1 on the broker→service leg guards nothing a TCP
 * connection does not: in-flight messages die with the session either way. The command path (state,
 * reply) takes QoS 0 and saves two PUBACKs per command. Telemetry takes `telemetryQos`: 0 on the
 * embedded broker (a third fewer packets per reading there), 1 on an external one (ServiceBroker.telemetryQos).
 * `clockTopic`: the world's clock jumps, on the same connection (TwinRegistryOptions.worldClockTopic).
 */
export function twinFilters(
  clockTopic: string | undefined,
  telemetryQos: 0 | 1 = 1,
): Record<string, { qos: 0 | 1 }> {
  return Object.fromEntries([
    ...(['info', 'availability'] as const).map((c) => [`${TOPIC_ROOT}/+/${c}`, { qos: 1 as const }]),
    [`${TOPIC_ROOT}/+/telemetry`, { qos: telemetryQos }],
    ...(['state', 'reply'] as const).map((c) => [`${TOPIC_ROOT}/+/${c}`, { qos: 0 as const }]),
    ...(clockTopic ? [[clockTopic, { qos: 1 as const }]] : []),
  ]);
}

/** Bounded: a connection lost meanwhile would hold mqtt.js' UNSUBSCRIBE until a reconnect. */
export async function unsubscribeWithin(client: MqttClient, filters: string[]): Promise<void> {
  if (!client.connected) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, UNSUBSCRIBE_TIMEOUT_MS);
  });
  await Promise.race([client.unsubscribeAsync(filters).catch(() => undefined), late]);
  clearTimeout(timer);
}
