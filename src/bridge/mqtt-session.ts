// The bridge's MQTT side: one connection with the meter's own credentials and its availability will
// [MC-6.2], reconnecting forever (mqtt.js, 1 s period) when the broker goes away. It subscribes to the
// meter's cmd topic on every connection and tells the bridge, which then announces the meter [MC-6.3].
// A broker that refuses the login for good (wrong password, not authorized) is fatal, not retried: the
// bridge could only ever fail the same way, so it says why and lets the command line exit [SP-7.5].

import type { MqttClient } from 'mqtt';
import { encode } from '../../firmware-protocol/mqtt/codec.ts';
import type { PayloadOf } from '../../firmware-protocol/mqtt/schemas.ts';
import { type Channel, PUBLISH_OPTIONS, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { createMeterClient } from '../mqtt/connect.ts';
import type { Logger } from '../serial/link.ts';

export interface BrokerOptions {
  url: string;
  /** The meter's device id [MC-2.5]. */
  username: string;
  password: string;
}

export interface MqttSessionOptions {
  broker: BrokerOptions;
  log: Logger;
  /** Subscribed to cmd and ready to announce. */
  onReady: () => void;
  /** A cmd payload that arrived without the retain flag [MC-8.1]. */
  onCommand: (payload: Buffer) => void;
  /** Every publish, for the recorder. */
  onPublish?: (topic: string, payload: unknown) => void;
  /** [SP-7.5] The broker refused the login for a reason retrying cannot cure. */
  onRefused?: (reason: string) => void;
  /** Wait before another try after CONNACK "server unavailable" (default 2 s). */
  retryMs?: number;
}

/** CONNACK codes (MQTT 3.1.1 table 3.1) that no retry cures, with what the operator should check. */
const FATAL_CONNACK: Readonly<Record<number, string>> = {
  1: 'the broker does not speak MQTT 3.1.1',
  2: 'the broker rejected the client id (it must be the device id, MC-2.5)',
  4: 'bad username or password: check --username (the device id) and --password / METERSTACK_BRIDGE_PASSWORD',
  5: 'not authorized: the broker does not accept this device id and password (is it a meterstack broker, and is the device provisioned as external?)',
};
const SERVER_UNAVAILABLE = 3;

/** [SP-7.5] What to tell the operator when an MQTT error is a login refused for good, else null. */
export function refusedLogin(err: Error & { code?: unknown }): string | null {
  return typeof err.code === 'number' ? (FATAL_CONNACK[err.code] ?? null) : null;
}

type MeterChannel = Exclude<Channel, 'cmd'>;

export class MqttSession {
  readonly #opts: MqttSessionOptions;
  readonly #client: MqttClient;
  #ready = false;

  constructor(opts: MqttSessionOptions) {
    this.#opts = opts;
    const { url, username, password } = opts.broker;
    this.#client = createMeterClient({ url, deviceId: username, password, connectTimeout: 5_000 });
    this.#client.on('connect', () => void this.#subscribe());
    this.#client.on('close', () => {
      if (this.#ready) opts.log('warn', `mqtt ${url}: connection lost; reconnecting`);
      this.#ready = false;
    });
    this.#client.on('error', (err) => this.#onError(err));
    this.#client.on('message', (_topic, payload, packet) => {
      if (packet.retain) return; // [MC-8.1]
      try {
        opts.onCommand(payload);
      } catch (err) {
        // [SP-6.1] whatever the service sends, the bridge stays up
        opts.log('error', `mqtt: handling a cmd failed: ${(err as Error).stack ?? err}`);
      }
    });
  }

  /** Connected and subscribed to cmd. */
  get ready(): boolean {
    return this.#ready && this.#client.connected;
  }

  /** Validates and publishes with the channel's QoS and retain flag; `done` gets the broker's ack. */
  publish<C extends MeterChannel>(channel: C, payload: PayloadOf<C>, done?: (err?: Error) => void): void {
    const text = encode(channel, payload);
    const topic = topicFor(this.#opts.broker.username, channel);
    this.#opts.onPublish?.(topic, JSON.parse(text));
    this.#client.publish(topic, text, PUBLISH_OPTIONS[channel], (err) => done?.(err ?? undefined));
  }

  /** [MC-6.4] Says offline when connected, then disconnects (discarding the will). */
  async close(): Promise<void> {
    if (this.#client.connected) {
      await new Promise<void>((resolve) =>
        this.publish('availability', { v: 1, online: false, ts: Date.now() }, () => resolve()),
      );
    }
    await this.#client.endAsync();
  }

  #onError(err: Error & { code?: unknown }): void {
    const { url } = this.#opts.broker;
    const code = typeof err.code === 'number' ? err.code : undefined;
    const fatal = refusedLogin(err);
    if (fatal) {
      this.#opts.log('error', `mqtt ${url}: login refused (CONNACK ${code}): ${fatal}`);
      this.#opts.onRefused?.(`the broker at ${url} refused the login: ${fatal}`);
      return;
    }
    if (code === SERVER_UNAVAILABLE) {
      // mqtt.js does not reconnect after a refused CONNACK; this refusal is the broker's own trouble.
      const ms = this.#opts.retryMs ?? 2_000;
      this.#opts.log('warn', `mqtt ${url}: broker says server unavailable (CONNACK 3); retrying in ${ms} ms`);
      setTimeout(() => {
        if (!this.#client.disconnecting && !this.#client.connected) this.#client.reconnect();
      }, ms).unref();
      return;
    }
    this.#opts.log('warn', `mqtt ${url}: ${err.message}; retrying every second`);
  }

  async #subscribe(): Promise<void> {
    const { broker, log } = this.#opts;
    try {
      await this.#client.subscribeAsync(topicFor(broker.username, 'cmd'), { qos: 1 });
    } catch (err) {
      log(
        'error',
        `mqtt: cannot subscribe to ${topicFor(broker.username, 'cmd')}: ${(err as Error).message}`,
      );
      return;
    }
    log('info', `mqtt ${broker.url}: connected as ${broker.username}`);
    this.#ready = true;
    try {
      this.#opts.onReady();
    } catch (err) {
      // [SP-6.8] an async path: a throw here would be an unhandled rejection, which ends the process
      log('error', `mqtt: announcing the meter failed: ${(err as Error).stack ?? err}`);
    }
  }
}
