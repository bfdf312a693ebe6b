// Small helpers for tests that talk to a real broker with real mqtt.js clients, after aedes'
// test/helper.js (connect, subscribe, nextPacket, checkNoPacket).

import { connectAsync, ErrorWithSubackPacket, type IClientOptions, type MqttClient } from 'mqtt';

export interface Message {
  topic: string;
  payload: string;
  retain: boolean;
}

/** Opens clients against one broker URL and ends them all in `endAll` (call it in afterEach). */
export class TestClients {
  private readonly open = new Set<MqttClient>();

  constructor(private readonly url: string) {}

  /** Connects and waits for CONNACK 0. No reconnects: a refused test must stay refused. */
  async connect(opts: IClientOptions): Promise<MqttClient> {
    const client = await connectAsync(this.url, { reconnectPeriod: 0, connectTimeout: 5_000, ...opts });
    this.open.add(client);
    return client;
  }

  /** Connects expecting CONNACK to refuse; resolves with the CONNACK return code. */
  async refused(opts: IClientOptions): Promise<number> {
    try {
      const client = await this.connect(opts);
      throw new Error(`expected CONNACK to refuse ${String(opts.clientId)}, it was accepted`, {
        cause: client,
      });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code !== 'number') throw err;
      return code;
    }
  }

  async endAll(): Promise<void> {
    await Promise.all([...this.open].map((client) => client.endAsync(true)));
    this.open.clear();
  }
}

/** Subscribes one filter and resolves with the granted QoS (128 = refused, MQTT 3.1.1 §3.9.3). */
export async function subscribe(client: MqttClient, filter: string, qos: 0 | 1 = 1): Promise<number> {
  try {
    const granted = await client.subscribeAsync(filter, { qos });
    const first = granted[0];
    if (first === undefined) throw new Error(`no SUBACK entry for ${filter}`);
    return first.qos;
  } catch (err) {
    // mqtt.js rejects when any SUBACK entry is a failure (0x80); the SUBACK rides on the error.
    const code = err instanceof ErrorWithSubackPacket ? err.packet.granted[0] : undefined;
    if (typeof code !== 'number') throw err;
    return code;
  }
}

/** The next message the client receives, or a rejection after `timeoutMs`. */
export function nextMessage(client: MqttClient, timeoutMs = 2_000): Promise<Message> {
  return new Promise((resolve, reject) => {
    const onMessage = (topic: string, payload: Buffer, packet: { retain: boolean }) => {
      clearTimeout(timer);
      resolve({ topic, payload: payload.toString('utf8'), retain: packet.retain });
    };
    const timer = setTimeout(() => {
      client.off('message', onMessage);
      reject(new Error(`no message within ${timeoutMs} ms`));
    }, timeoutMs);
    client.once('message', onMessage);
  });
}

/** Resolves if the client receives nothing for `ms`; rejects naming the first message otherwise. */
export function expectNoMessage(client: MqttClient, ms = 300): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (topic: string) => {
      clearTimeout(timer);
      reject(new Error(`unexpected message on ${topic}`));
    };
    const timer = setTimeout(() => {
      client.off('message', onMessage);
      resolve();
    }, ms);
    client.once('message', onMessage);
  });
}

/** Resolves when the client's connection closes, or rejects after `timeoutMs`. */
export function closed(client: MqttClient, timeoutMs = 2_000): Promise<void> {
  if (!client.connected) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`connection still open after ${timeoutMs} ms`)),
      timeoutMs,
    );
    client.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
