// [HA-9] The extension's publications while the broker is away: held back (the latest per topic), not
// queued in mqtt.js for as long as the outage lasts, and published once the broker is back. The outage is
// a real one: the extension's connection runs through a TCP relay to a real Mosquitto, which the test cuts.

import net from 'node:net';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningMosquitto,
  skipWithoutMosquitto,
  startMosquitto,
} from '../../../test/helpers/mosquitto.ts';
import type { Counter } from '../../events/metrics.ts';
import { HaPublisher, MAX_IN_FLIGHT } from './publisher.ts';

let m: RunningMosquitto;
let relay: net.Server;
let relayUrl: string;
let down = false;
const sockets = new Set<net.Socket>();
const clients: MqttClient[] = [];

if (skipWithoutMosquitto) console.warn('Mosquitto is not installed: these tests are skipped');

function counter(): Counter {
  return { inc: () => {}, value: 0 };
}

/** Cuts every relayed connection and refuses new ones until `restore`. */
function cut(): void {
  down = true;
  for (const s of sockets) s.destroy();
}

describe.skipIf(skipWithoutMosquitto)('[HA-9] publications while the broker is away', () => {
  beforeAll(async () => {
    m = await startMosquitto({ dynsec: false });
    relay = net.createServer((inbound) => {
      if (down) return void inbound.destroy();
      const outbound = net.connect(m.port, '127.0.0.1');
      for (const s of [inbound, outbound]) {
        sockets.add(s);
        s.on('error', () => undefined);
        s.on('close', () => {
          sockets.delete(s);
          inbound.destroy();
          outbound.destroy();
        });
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    relayUrl = `mqtt://127.0.0.1:${(relay.address() as net.AddressInfo).port}`;
  }, 20_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)));
    for (const s of sockets) s.destroy();
    await new Promise((r) => relay?.close(r));
    await m?.stop();
  });

  it('holds the latest per topic while disconnected (mqtt.js queues nothing), publishes it on reconnect', async () => {
    const login = { username: m.admin.username, password: m.admin.password };
    const client = await mqtt.connectAsync(relayUrl, { ...login, reconnectPeriod: 50, clientId: 'ha-pub' });
    clients.push(client);
    client.on('error', () => undefined);
    const publisher = new HaPublisher({
      client,
      log: () => {},
      url: relayUrl,
      counters: { published: counter(), refused: counter() },
    });
    cut();
    await expect.poll(() => client.connected, { interval: 10, timeout: 2_000 }).toBe(false);
    // 10 s of 10,000 meters' states, ten times over: 20 topics × 500 payloads.
    for (let round = 0; round < 500; round++)
      for (let i = 0; i < 20; i++) publisher.publish(`ha-test/${i}/state`, `{"round":${round}}`);
    expect(client.queue.length).toBe(0);
    expect(publisher.pending).toBe(0);
    expect(publisher.held).toBe(20);

    down = false;
    await publisher.drain(5_000);
    expect(publisher.held).toBe(0);
    const reader = await mqtt.connectAsync(m.url, { ...login, reconnectPeriod: 0 });
    clients.push(reader);
    const got = new Map<string, string>();
    reader.on('message', (topic, payload) => got.set(topic, payload.toString()));
    await reader.subscribeAsync('ha-test/#', { qos: 1 });
    await expect.poll(() => got.size, { interval: 10, timeout: 2_000 }).toBe(20);
    expect([...got.values()].every((p) => p === '{"round":499}')).toBe(true);
  });

  it(`never hands mqtt.js more than ${MAX_IN_FLIGHT} unanswered publications`, async () => {
    const client = await mqtt.connectAsync(m.url, {
      username: m.admin.username,
      password: m.admin.password,
      reconnectPeriod: 0,
    });
    clients.push(client);
    const publisher = new HaPublisher({
      client,
      log: () => {},
      url: m.url,
      counters: { published: counter(), refused: counter() },
    });
    for (let i = 0; i < 3 * MAX_IN_FLIGHT; i++) publisher.publish(`ha-test/bulk/${i}`, '');
    expect(publisher.pending).toBe(MAX_IN_FLIGHT);
    expect(publisher.held).toBe(2 * MAX_IN_FLIGHT);
    await publisher.drain(5_000);
    expect(publisher.pending + publisher.held).toBe(0);
  });
});
