// The bridge's MQTT side: one connection with the meter's own credentials and its availability will
// [MC-6.2], reconnecting forever (mqtt.js, 1 s period) when the broker goes away. It subscribes to the
// meter's cmd topic on every connection and tells the bridge, which then announces the meter [MC-6.3].

import type { MqttClient } from 'mqtt';
import { encode } from '../../firmware-protocol/mqtt/codec.ts';
import type { PayloadOf } from '../../firmware-protocol/mqtt/schemas.ts';
import { type Channel, PUBLISH_OPTIONS, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { createMeterClient } from '../mqtt/connect.ts';
import type { Logger } from './link.ts';

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
    this.#client.on('error', (err) => opts.log('warn', `mqtt ${url}: ${err.message}`));
    this.#client.on('message', (_topic, payload, packet) => {
      if (!packet.retain) opts.onCommand(payload);
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
    this.#opts.onReady();
  }
}
