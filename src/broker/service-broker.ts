// What the service needs of a broker, whichever runs it: the embedded aedes (broker.ts) or an
// external one (external.ts: Mosquitto, RabbitMQ, ...). The world and the twins see only this.

import type { Broker } from './broker.ts';

export type BrokerKind = 'embedded' | 'external';

/** A login on a broker. */
export interface BrokerLogin {
  username: string;
  password: string;
}

/**
 * A login the service issues for a client of its own kind (Home Assistant): on the embedded broker a
 * `scoped` principal (access.ts), on Mosquitto a dynsec role of the same filters. `serviceTopics`: the
 * topics the service itself publishes and subscribes to for that client, beyond the meters' contract.
 */
export interface ScopedLogin extends BrokerLogin {
  /** Also the dynsec role's name. */
  role: string;
  publish: readonly string[];
  subscribe: readonly string[];
  serviceTopics: readonly string[];
}

/**
 * Who checks meters' logins: the store (embedded), meterstack through Mosquitto's dynamic security
 * (`dynsec`), or the broker's own administrator (`unmanaged`, e.g. RabbitMQ).
 */
export type MeterLogins = 'store' | 'dynsec' | 'unmanaged';

export interface ServiceBroker {
  kind: BrokerKind;
  logins: MeterLogins;
  /** Where meters and the service connect: mqtt://host:port, never with credentials in it. */
  url: string;
  /** The service's own login on it: the twins subscribe and command with it. */
  service: BrokerLogin;
  /**
   * [MC-2.3] The QoS the twins subscribe to telemetry with. The service's session is clean, so the
   * broker→service leg's QoS guards nothing a TCP connection does not. 0 on the embedded aedes, which
   * writes a QoS 0 message to a slow subscriber as it writes a QoS 1 one, only without the service's
   * PUBACK per reading and aedes' in-flight bookkeeping of it; 1 on an external broker, whose queue
   * limits may treat QoS 0 otherwise (Mosquitto's `max_queued_messages`, `queue_qos0_messages`).
   */
  telemetryQos: 0 | 1;
  /**
   * Gives a meter its login and a topic ACL limited to its own `meterstack/v1/{id}/…`, where the broker
   * keeps logins itself (Mosquitto's dynamic security); resolves once the broker took it. The embedded
   * broker checks logins against the store, so there it does nothing. `restore`: a restart making
   * sure the login exists; one already there is left untouched (dynsec-client.ts says why).
   */
  addMeter(deviceId: string, secret: string, opts?: { restore?: boolean }): Promise<void>;
  /** Takes a meter's login and ACL away again. */
  removeMeter(deviceId: string): Promise<void>;
  /**
   * Calls `listener` with the device id of every meter whose keep-alive ran out, where the broker tells
   * (the embedded one); an external broker fires the will without saying why.
   */
  onMeterLinkTimeout(listener: (deviceId: string) => void): () => void;
  /** The embedded aedes broker, when it is that one. */
  embedded: Broker | null;
  close(): Promise<void>;
}

/** The embedded broker as a ServiceBroker: logins are the store's business (service.ts authenticate). */
export function embeddedServiceBroker(broker: Broker, service: BrokerLogin): ServiceBroker {
  return {
    kind: 'embedded',
    logins: 'store',
    url: broker.url,
    service,
    telemetryQos: 0,
    addMeter: async () => {},
    removeMeter: async () => {},
    onMeterLinkTimeout: (listener) => broker.onMeterLinkTimeout(listener),
    embedded: broker,
    close: () => broker.close(),
  };
}
