// [HA-9] The extension's publications on its own MQTT connection (the service's login): retained QoS 1,
// and a broker that refuses them (Mosquitto answers an MQTT 5 PUBACK with "not authorized" when an ACL
// says no) is told once in the log, not once per meter or per publication; each refusal is counted.
// While the broker is away, or more than MAX_IN_FLIGHT publications wait for their PUBACK, a publication
// is held back instead of handed to mqtt.js (whose offline queue grows for as long as the outage lasts):
// only the latest payload per topic is kept, so what is held is bounded by the topics, not by time.

import type { MqttClient } from 'mqtt';
import type { Counter } from '../../events/metrics.ts';
import type { Log } from '../../log/types.ts';

export interface PublisherOptions {
  client: MqttClient;
  log: Log;
  /** For the log line. */
  url: string;
  counters: { published: Counter; refused: Counter };
}

/** Publications handed to mqtt.js and not answered yet, at most. */
export const MAX_IN_FLIGHT = 1_000;

export class HaPublisher {
  readonly #opts: PublisherOptions;
  /** A refusal was told and no publication has been taken since. */
  #reported = false;
  #pending = 0;
  #closed = false;
  #idle: (() => void)[] = [];
  /** Held back, the latest payload per topic, oldest first. */
  readonly #held = new Map<string, string>();

  constructor(opts: PublisherOptions) {
    this.#opts = opts;
    opts.client.on('connect', () => this.#pump());
  }

  /** Publishes retained; '' clears the topic (HA removes the entity). Never throws, never waits. */
  publish(topic: string, payload: string): void {
    if (this.#closed) return;
    // Behind what is held already, so a topic's payloads reach the broker in order.
    this.#held.delete(topic);
    this.#held.set(topic, payload);
    this.#pump();
  }

  /** Hands held publications to mqtt.js while the broker is there and fewer than the bound are out. */
  #pump(): void {
    const client = this.#opts.client;
    for (const [topic, payload] of this.#held) {
      if (this.#closed || !client.connected || this.#pending >= MAX_IN_FLIGHT) return;
      this.#held.delete(topic);
      this.#send(topic, payload);
    }
  }

  #send(topic: string, payload: string): void {
    this.#pending++;
    this.#opts.client.publish(topic, payload, { qos: 1, retain: true }, (err) => {
      // A publication cut short by the service's own stop is no refusal of the broker's.
      if (err && !this.#closed) this.#refused(topic, err);
      else if (!err) this.#taken();
      this.#pending--;
      this.#pump();
      if (this.#pending === 0 && this.#held.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
    });
  }

  /** The service stops: nothing more is published, and what is cut short is not a refusal. */
  close(): void {
    this.#closed = true;
  }

  /** Publications not answered yet. */
  get pending(): number {
    return this.#pending;
  }

  /** Topics held back (broker away, or too many out). */
  get held(): number {
    return this.#held.size;
  }

  /** Resolves once every publication asked so far was answered (tests, stop()), or after `timeoutMs`. */
  drain(timeoutMs = 5_000): Promise<void> {
    if (this.#pending === 0 && this.#held.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      timer.unref();
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  #refused(topic: string, err: Error): void {
    this.#opts.counters.refused.inc();
    if (this.#reported) return;
    this.#reported = true;
    this.#opts.log(
      'warn',
      `Home Assistant: the broker at ${this.#opts.url} refuses the extension's publications (${topic}: ${err.message}); ` +
        `further refusals are only counted (meterstack_ha_publish_refused_total) until one is taken [HA-9]`,
    );
  }

  #taken(): void {
    this.#opts.counters.published.inc();
    if (!this.#reported) return;
    this.#reported = false;
    this.#opts.log(
      'info',
      `Home Assistant: the broker at ${this.#opts.url} takes the extension's publications again`,
    );
  }
}
