// Issue 19 step 7: clients in the broker's own process (the twins, virtual meters) reach it over an
// in-memory stream instead of loopback TCP. Everything the broker promises a TCP client still holds for
// them: login, the will on an abrupt drop, no will after a clean DISCONNECT, the packet size limit, the
// connection cap, the end of every connection when the broker closes. TCP clients talk to them as before.

import { once } from 'node:events';
import { createConnection, Socket } from 'node:net';
import type { MqttClient } from 'mqtt';
import { generate } from 'mqtt-packet';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import { connectMqtt, createMeterClient } from '../mqtt/connect.ts';
import { DuplexSide } from '../mqtt/duplex-pair.ts';
import type { Principal } from './access.ts';
import { type Broker, type BrokerOptions, startBroker } from './broker.ts';
import { closed, expectNoMessage, nextMessage, subscribe, TestClients } from './test-helpers.ts';

const USERS: Record<string, { password: string; principal: Principal }> = {
  service: { password: 'svc-secret', principal: { kind: 'service' } },
  A: { password: 'a-secret', principal: { kind: 'meter', deviceId: 'A' } },
  B: { password: 'b-secret', principal: { kind: 'meter', deviceId: 'B' } },
};

function authenticate(username: string, password: string): Principal | null {
  const user = USERS[username];
  return user !== undefined && user.password === password ? user.principal : null;
}

const SERVICE = { clientId: 'service', username: 'service', password: 'svc-secret' };

describe('in-process clients of the embedded broker', () => {
  let broker: Broker;
  let tcp: TestClients;
  const local: MqttClient[] = [];

  async function start(opts: Partial<BrokerOptions> = {}): Promise<Broker> {
    return startBroker({ port: 0, authenticate, ...opts });
  }

  /** A client through `createMqttClient`, as the twins connect: in memory, no reconnects. */
  async function service(): Promise<MqttClient> {
    const client = await connectMqtt({ url: broker.url, ...SERVICE, reconnectPeriod: 0 });
    local.push(client);
    return client;
  }

  /** A meter through `createMeterClient`, as the meter link connects: its will set [MC-6.2]. */
  function meter(deviceId: 'A' | 'B'): Promise<MqttClient> {
    const client = createMeterClient({
      url: broker.url,
      deviceId,
      password: USERS[deviceId]!.password,
      reconnectPeriod: 0,
    });
    local.push(client);
    return new Promise((resolve, reject) => {
      client.once('connect', () => {
        expect(client.stream).toBeInstanceOf(DuplexSide);
        resolve(client);
      });
      client.once('error', reject);
      client.once('close', () => reject(new Error(`${deviceId}: connection closed before CONNACK`)));
    });
  }

  beforeEach(async () => {
    broker = await start();
    tcp = new TestClients(broker.url);
  });

  afterEach(async () => {
    await Promise.all(local.splice(0).map((c) => c.endAsync(true)));
    await tcp.endAll();
    await broker.close();
  });

  it('takes an in-memory stream, not a socket, and exchanges messages with a TCP client', async () => {
    const svc = await service();
    expect(svc.stream).toBeInstanceOf(DuplexSide);
    expect(svc.stream).not.toBeInstanceOf(Socket);
    const watcher = await tcp.connect({ ...SERVICE, clientId: 'watcher' });
    await subscribe(watcher, 'meterstack/v1/+/cmd');
    await subscribe(svc, 'meterstack/v1/+/reply');
    const toWatcher = nextMessage(watcher);
    await svc.publishAsync(topicFor('A', 'cmd'), 'over memory', { qos: 1 });
    expect(await toWatcher).toMatchObject({ payload: 'over memory' });
    const toSvc = nextMessage(svc);
    await watcher.publishAsync(topicFor('A', 'reply'), 'over tcp', { qos: 1 });
    expect(await toSvc).toMatchObject({ payload: 'over tcp' });
    expect(broker.connectedClients()).toBe(2);
  });

  it("transport: 'tcp' keeps a socket (a bench measuring TCP)", async () => {
    const client = await connectMqtt({ url: broker.url, ...SERVICE, reconnectPeriod: 0, transport: 'tcp' });
    local.push(client);
    expect(client.stream).toBeInstanceOf(Socket);
  });

  it('refuses wrong credentials with 0x04, as over TCP', async () => {
    await expect(
      connectMqtt({ url: broker.url, ...SERVICE, password: 'nope', reconnectPeriod: 0 }),
    ).rejects.toMatchObject({ code: 4 });
    expect(broker.refusals().logins['bad username or password']).toBe(1);
  });

  it('[MC-6.2] an abrupt drop (a link fault) fires the will, and the service sees the meter offline', async () => {
    const svc = await service();
    await subscribe(svc, 'meterstack/v1/+/availability');
    const a = await meter('A');
    const will = nextMessage(svc);
    a.end(true); // what the meter link's drop() does: the stream destroyed, no DISCONNECT
    expect(await will).toMatchObject({ topic: topicFor('A', 'availability'), retain: false });
    expect(JSON.parse((await will).payload)).toMatchObject({ online: false });
    await expect.poll(() => broker.connectedClients()).toBe(1);
  });

  it('[MC-6.4] a clean DISCONNECT fires no will, even with the stream closed right after it', async () => {
    const svc = await service();
    await subscribe(svc, 'meterstack/v1/+/availability');
    const a = await meter('A');
    await a.endAsync(); // DISCONNECT, then the stream ends and is destroyed at once
    await expectNoMessage(svc, 300);
    expect(broker.connectedClients()).toBe(1);
  });

  it('[MC-10.1] closes an in-memory connection whose packet declares more than the limit, as over TCP', async () => {
    await broker.close();
    broker = await start({ limits: { maxPacketBytes: 1024 } });
    const a = await meter('A');
    const gone = closed(a);
    a.stream.write(
      generate({
        cmd: 'publish',
        topic: topicFor('A', 'state'),
        payload: Buffer.alloc(2000, 0x20),
        qos: 0,
        retain: true,
        dup: false,
      }),
    );
    await gone;
    expect(broker.refusals().connections).toEqual({ 'packet too large': 1 });
    await expect.poll(() => broker.connectedClients()).toBe(0);
  });

  it('[MC-10.4] the connection cap counts in-memory clients with TCP ones', async () => {
    await broker.close();
    broker = await start({ limits: { maxConnections: 2 } });
    tcp = new TestClients(broker.url);
    // Logged in once aedes calls them ready, a few ticks after their CONNACK: only then not evictable.
    const ready = new Promise<void>((resolve) => {
      let n = 0;
      broker.aedes.on('clientReady', () => ++n === 2 && resolve());
    });
    await service();
    await meter('A');
    await ready;
    // A third connection over TCP finds nobody to evict: closed at once.
    const third = createConnection({ host: '127.0.0.1', port: broker.port });
    third.on('error', () => undefined);
    await once(third, 'close');
    expect(broker.refusals().connections['at the connection cap']).toBe(1);
    // An in-memory newcomer is refused the same way.
    await expect(meter('B')).rejects.toThrow('B: connection closed before CONNACK');
    expect(broker.refusals().connections['at the connection cap']).toBe(2);
  });

  it('closing the broker ends every in-memory client, and a reconnection then goes to TCP and fails', async () => {
    const svc = await service();
    const a = await meter('A');
    const ends = [closed(svc), closed(a)];
    await broker.close();
    await Promise.all(ends);
    expect(svc.connected).toBe(false);
    expect(a.connected).toBe(false);
    // The port is no longer registered: a new client takes a socket, and finds nothing listening.
    await expect(connectMqtt({ url: broker.url, ...SERVICE, reconnectPeriod: 0 })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });
});
