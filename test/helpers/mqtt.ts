// Real mqtt.js clients against a running meterstack: the admin user (full rights, as mosquitto_sub
// would use) and a device's own credentials. Every message a client receives is kept in an Inbox so a
// test can wait for the one it expects. The broker's own helpers (connect, subscribe, refused, ...) are
// in src/broker/test-helpers.ts.

import type { MqttClient } from 'mqtt';
import { TestClients } from '../../src/broker/test-helpers.ts';
import { ADMIN_MQTT_USERNAME } from '../../src/service.ts';

export interface Received {
  topic: string;
  payload: string;
  retain: boolean;
  json: Record<string, unknown>;
}

/** Everything a client received, and a way to wait for a message that matches. */
export class Inbox {
  readonly messages: Received[] = [];
  readonly #waiters = new Set<{ match: (m: Received) => boolean; resolve: (m: Received) => void }>();

  constructor(client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      const text = payload.toString('utf8');
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // not JSON: kept as text only
      }
      const m = { topic, payload: text, retain: packet.retain, json };
      this.messages.push(m);
      for (const w of this.#waiters) {
        if (w.match(m)) {
          this.#waiters.delete(w);
          w.resolve(m);
        }
      }
    });
  }

  /** Resolves once `n` messages have been received in all. */
  async count(n: number, timeoutMs = 3_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.messages.length < n) {
      if (Date.now() > deadline)
        throw new Error(`${this.messages.length} of ${n} messages within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return this.messages;
  }

  on(topic: string): Received[] {
    return this.messages.filter((m) => m.topic === topic);
  }

  /** The first message (already received or still to come) that matches. */
  waitFor(
    match: (m: Received) => boolean,
    timeoutMs = 3_000,
    what = 'a matching message',
  ): Promise<Received> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: (m: Received) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms; got ${this.messages.map((m) => m.topic)}`));
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }
}

/** Opens clients on a service's broker and ends them all in endAll(). */
export class ServiceClients extends TestClients {
  constructor(
    url: string,
    private readonly adminToken: string,
  ) {
    super(url);
  }

  /** A fresh client with the admin user's rights (username admin, password = the admin token). */
  admin(clientId = `admin-${Math.random().toString(36).slice(2)}`): Promise<MqttClient> {
    return this.connect({ clientId, username: ADMIN_MQTT_USERNAME, password: this.adminToken });
  }

  /** A client logged in as the device, with its id as client id (the broker requires it). */
  device(creds: { username: string; password: string }): Promise<MqttClient> {
    return this.connect({ clientId: creds.username, username: creds.username, password: creds.password });
  }
}
