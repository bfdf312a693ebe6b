// The brokers a tenancy or contract test runs against (STYLE.md rule 11): the embedded aedes, and a
// real Mosquitto 2 with dynamic security where meterstack makes each meter's login and ACL
// (test/helpers/mosquitto.ts). `describe.each(BROKERS)` and `startServiceOn(broker)` are all a test
// needs; `REFUSAL` says how each broker refuses, where MQTT 3.1.1 leaves it a choice (docs/brokers.md).

import type { ServiceConfig } from '../../src/service.ts';
import { type RunningMosquitto, skipWithoutMosquitto, startMosquitto } from './mosquitto.ts';
import { startTestService, type TestService } from './service.ts';

export type BrokerUnderTest = 'embedded' | 'mosquitto';

/** Mosquitto is left out only where it is not installed and CI is not set (then it must fail). */
export const BROKERS: BrokerUnderTest[] = skipWithoutMosquitto ? ['embedded'] : ['embedded', 'mosquitto'];

export interface BrokerRefusal {
  /** A meter's publish outside its own topics: aedes closes the connection [MC-2.5], Mosquitto drops it. */
  foreignPublishCloses: boolean;
  /** CONNACK for a meter's login with another client id: 2 identifier rejected, or 5 not authorized. */
  wrongClientId: number;
  /** CONNACK for a wrong password: 4 bad username or password (aedes), 5 not authorized (Mosquitto). */
  badPassword: number;
  /** Whether the broker logs which publish it refused, in the service's log (aedes runs in-process). */
  logsRefusals: boolean;
}

export const REFUSAL: Record<BrokerUnderTest, BrokerRefusal> = {
  embedded: { foreignPublishCloses: true, wrongClientId: 2, badPassword: 4, logsRefusals: true },
  // Mosquitto's ACL check drops a denied PUBLISH (QoS 1 still gets its PUBACK) and keeps the
  // connection; dynsec refuses a client id that is not the login's pinned one as "not authorized".
  mosquitto: { foreignPublishCloses: false, wrongClientId: 5, badPassword: 5, logsRefusals: false },
};

/** 263,168 bytes of remaining length [MC-10.1] plus the largest fixed header. */
export const MOSQUITTO_MAX_PACKET = 263_168 + 5;

export interface ServiceOnBroker extends TestService {
  broker: BrokerUnderTest;
  /** The Mosquitto this service uses, if it is that one. */
  mosquitto: RunningMosquitto | null;
}

/** A test service on the embedded broker, or on a fresh Mosquitto with dynamic security. */
export async function startServiceOn(
  broker: BrokerUnderTest,
  overrides: Partial<ServiceConfig> = {},
): Promise<ServiceOnBroker> {
  if (broker === 'embedded') return { ...(await startTestService(overrides)), broker, mosquitto: null };
  // [MC-10.1] Mosquitto's max_packet_size counts the fixed header too (1 + up to 4 bytes).
  const mosquitto = await startMosquitto({ conf: [`max_packet_size ${MOSQUITTO_MAX_PACKET}`] });
  try {
    const t = await startTestService({ broker: mosquitto.brokerUrl, brokerLogins: 'dynsec', ...overrides });
    return {
      ...t,
      broker,
      mosquitto,
      async close() {
        await t.close();
        await mosquitto.stop();
      },
    };
  } catch (err) {
    await mosquitto.stop();
    throw err;
  }
}
