// [MC-12] Whether the broker a meter reached is meterstack's: the service's retained announcement on
// `meterstack/v1/service` arrives right after subscribing. Another broker on the port (a machine's own
// Mosquitto on 1883 that lets anyone in) accepts the login and announces nothing, and a bridge that
// said "connected" there would leave its operator waiting for a meter that never appears (issue 20 §3).

import type { MqttClient } from 'mqtt';
import { decodeServiceAnnouncement } from '../../firmware-protocol/mqtt/codec.ts';
import { SERVICE_TOPIC } from '../../firmware-protocol/mqtt/topics.ts';
import type { LinkEvent } from './events.ts';

/**
 * On this connection of `client`: subscribes to the announcement [MC-12.2] and emits `service` when it
 * comes, or `service_missing` once `waitMs` passed without it (and `service` still, should it come later).
 */
export function watchService(client: MqttClient, waitMs: number, emit: (event: LinkEvent) => void): void {
  let seen = false;
  const timer = setTimeout(() => {
    if (!seen && client.connected) emit({ type: 'service_missing', topic: SERVICE_TOPIC, waitedMs: waitMs });
  }, waitMs);
  const onMessage = (topic: string, payload: Buffer) => {
    if (topic !== SERVICE_TOPIC || seen) return;
    const decoded = decodeServiceAnnouncement(payload);
    if (!decoded.ok) return; // not meterstack's (or cleared): the timer says so
    seen = true;
    clearTimeout(timer);
    emit({ type: 'service', announcement: decoded.value });
  };
  client.on('message', onMessage);
  client.once('close', () => {
    clearTimeout(timer);
    client.off('message', onMessage);
  });
  // A broker that refuses the subscription (one without MC-12.2) is the timer's case too.
  client.subscribe(SERVICE_TOPIC, { qos: 1 }, () => {});
}
