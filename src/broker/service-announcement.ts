// [MC-12.1] The service says whose broker this is: a retained `meterstack/v1/service` with its name,
// version and HTTP URL, published with the service's own login on the broker the meters use, embedded
// or external. A bridge waits for it after connecting [MC-12.2], so a machine's own Mosquitto on the
// port it was pointed at no longer passes for meterstack (issue 20 §3).

import { randomBytes } from 'node:crypto';
import { type ServiceAnnouncement, ServiceAnnouncementSchema } from '../../firmware-protocol/mqtt/schemas.ts';
import { SERVICE_TOPIC } from '../../firmware-protocol/mqtt/topics.ts';
import { connectMqtt } from '../mqtt/connect.ts';
import type { BrokerLogin } from './service-broker.ts';

/** Publishes the announcement, retained at QoS 1, and resolves once the broker has it. */
export async function announceService(
  broker: { url: string; service: BrokerLogin },
  announcement: ServiceAnnouncement,
): Promise<void> {
  const payload = JSON.stringify(ServiceAnnouncementSchema.parse(announcement));
  const client = await connectMqtt({
    url: broker.url,
    clientId: `meterstack-announce-${randomBytes(6).toString('hex')}`,
    username: broker.service.username,
    password: broker.service.password,
    reconnectPeriod: 0,
    connectTimeout: 5_000,
  });
  try {
    await client.publishAsync(SERVICE_TOPIC, payload, { qos: 1, retain: true });
  } finally {
    await client.endAsync();
  }
}
