import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import type { Client as AedesClient } from 'aedes';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { Principal } from './access.ts';
import { type Broker, type BrokerOptions, startBroker } from './broker.ts';
import { closed, expectNoMessage, nextMessage, subscribe, TestClients } from './test-helpers.ts';

const USERS: Record<string, { password: string; principal: Principal }> = {
  service: { password: 'svc-secret', principal: { kind: 'service' } },
  'meter-a': { password: 'a-secret', principal: { kind: 'meter', deviceId: 'A' } },
  'meter-b': { password: 'b-secret', principal: { kind: 'meter', deviceId: 'B' } },
  'meter-plus': { password: 'p-secret', principal: { kind: 'meter', deviceId: '+' } },
};

function authenticate(username: string, password: string): Principal | null {
  const user = USERS[username];
  return user !== undefined && user.password === password ? user.principal : null;
}

const SERVICE = { clientId: 'service', username: 'service', password: 'svc-secret' };
const METER_A = { clientId: 'A', username: 'meter-a', password: 'a-secret' };
const METER_B = { clientId: 'B', username: 'meter-b', password: 'b-secret' };

function listenPlain(): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer();
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      resolve({ port: address.port, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

describe('broker', () => {
  let broker: Broker;
  let clients: TestClients;
  let logs: string[];

  async function start(opts: Partial<BrokerOptions> = {}): Promise<Broker> {
    return startBroker({
      port: 0,
      authenticate,
      log: (level, msg) => logs.push(`${level}: ${msg}`),
      ...opts,
    });
  }

  beforeEach(async () => {
    logs = [];
    broker = await start();
    clients = new TestClients(broker.url);
  });

  afterEach(async () => {
    await clients.endAll();
    await broker.close();
    vi.restoreAllMocks();
  });

  describe('CONNECT', () => {
    it('accepts the service on an ephemeral port', async () => {
      expect(broker.url).toBe(`mqtt://127.0.0.1:${broker.port}`);
      expect(broker.port).toBeGreaterThan(0);
      await clients.connect(SERVICE);
      expect(broker.connectedClients()).toBe(1);
    });

    it('accepts a meter with its secret and records its principal', async () => {
      const ready = new Promise<AedesClient>((resolve) => broker.aedes.once('clientReady', resolve));
      await clients.connect(METER_A);
      expect(broker.connectedClients()).toBe(1);
      expect(broker.principalOf(await ready)).toEqual({ kind: 'meter', deviceId: 'A' });
    });

    it('refuses a wrong password with 0x04 bad username or password', async () => {
      expect(await clients.refused({ ...METER_A, password: 'nope' })).toBe(4);
      expect(broker.connectedClients()).toBe(0);
    });

    it('refuses an unknown user with 0x04', async () => {
      expect(await clients.refused({ clientId: 'x', username: 'mallory', password: 'a-secret' })).toBe(4);
    });

    it('refuses a CONNECT without credentials with 0x04', async () => {
      expect(await clients.refused({ clientId: 'A' })).toBe(4);
    });

    it('[MQTT-3.1.3-9] refuses a meter whose client id is not its device id with 0x02, so it cannot take over another session [MQTT-3.1.4-2]', async () => {
      const b = await clients.connect(METER_B);
      expect(await clients.refused({ ...METER_A, clientId: 'B' })).toBe(2);
      expect(b.connected).toBe(true);
    });

    it('[MC-1.2] refuses credentials that map to an invalid device id with 0x05', async () => {
      expect(await clients.refused({ clientId: '+', username: 'meter-plus', password: 'p-secret' })).toBe(5);
    });

    it('[MC-2.1] refuses a meter whose will is not on its own availability topic with 0x05', async () => {
      const will = {
        topic: topicFor('B', 'availability'),
        payload: Buffer.from('offline'),
        qos: 1 as const,
        retain: true,
      };
      expect(await clients.refused({ ...METER_A, will })).toBe(5);
    });

    it('answers 0x03 server unavailable when authenticate throws, and logs it', async () => {
      await broker.close();
      broker = await start({ authenticate: () => Promise.reject(new Error('db down')) });
      clients = new TestClients(broker.url);
      expect(await clients.refused(SERVICE)).toBe(3);
      expect(logs.some((line) => line.startsWith('error:') && line.includes('db down'))).toBe(true);
    });
  });

  describe('topic rules', () => {
    it('[MC-2.1] meter publishes on its own topics and the service receives them', async () => {
      const service = await clients.connect(SERVICE);
      await subscribe(service, 'meterstack/v1/+/telemetry');
      const a = await clients.connect(METER_A);
      const received = nextMessage(service);
      await a.publishAsync(topicFor('A', 'telemetry'), '{"p":1}', { qos: 1 });
      expect(await received).toMatchObject({ topic: topicFor('A', 'telemetry'), payload: '{"p":1}' });
    });

    it("[MC-2.1] [MQTT-3.3.5-2] meter cannot publish under another meter's topics: dropped and disconnected", async () => {
      const service = await clients.connect(SERVICE);
      await subscribe(service, 'meterstack/v1/B/#');
      const a = await clients.connect(METER_A);
      const nothing = expectNoMessage(service);
      a.publish(topicFor('B', 'state'), '{"relay":"off"}', { qos: 0 });
      await nothing;
      await closed(a);
      expect(logs.some((line) => line.includes('publish to meterstack/v1/B/state not allowed'))).toBe(true);
    });

    it('[MC-2.2] meter subscribes to its own cmd topic and receives commands', async () => {
      const a = await clients.connect(METER_A);
      expect(await subscribe(a, topicFor('A', 'cmd'))).toBe(1);
      const service = await clients.connect(SERVICE);
      const received = nextMessage(a);
      await service.publishAsync(topicFor('A', 'cmd'), '{"transaction":1}', { qos: 1 });
      expect(await received).toMatchObject({ topic: topicFor('A', 'cmd'), payload: '{"transaction":1}' });
    });

    it("[MC-2.2] meter cannot subscribe to another meter's cmd topic: granted 0x80", async () => {
      const a = await clients.connect(METER_A);
      expect(await subscribe(a, topicFor('B', 'cmd'))).toBe(128);
      const service = await clients.connect(SERVICE);
      const nothing = expectNoMessage(a);
      await service.publishAsync(topicFor('B', 'cmd'), 'x', { qos: 1 });
      await nothing;
      expect(a.connected).toBe(true);
    });

    it.each(['meterstack/v1/#', 'meterstack/v1/+/cmd', 'meterstack/v1/A/+', '#', '$SYS/#'])(
      '[MC-2.2] meter cannot subscribe to the wildcard %s: granted 0x80',
      async (filter) => {
        const a = await clients.connect(METER_A);
        expect(await subscribe(a, filter)).toBe(128);
      },
    );

    it('[MC-2.1] [MQTT-3.1.2-8] a meter will on its own availability topic reaches the service when its socket dies', async () => {
      const service = await clients.connect(SERVICE);
      await subscribe(service, 'meterstack/v1/+/availability');
      const will = {
        topic: topicFor('A', 'availability'),
        payload: Buffer.from('offline'),
        qos: 1 as const,
        retain: true,
      };
      const a = await clients.connect({ ...METER_A, will });
      const received = nextMessage(service);
      a.stream.destroy();
      expect(await received).toMatchObject({ topic: topicFor('A', 'availability'), payload: 'offline' });
    });

    it('[MQTT-3.3.1-6] a retained availability message reaches a late subscriber', async () => {
      const a = await clients.connect(METER_A);
      await a.publishAsync(topicFor('A', 'availability'), 'online', { qos: 1, retain: true });
      const service = await clients.connect(SERVICE);
      const received = nextMessage(service);
      await subscribe(service, topicFor('A', 'availability'));
      expect(await received).toEqual({
        topic: topicFor('A', 'availability'),
        payload: 'online',
        retain: true,
      });
    });
  });

  describe('listening', () => {
    it('takes the next port when the requested one is in use, and says so', async () => {
      const blocker = await listenPlain();
      try {
        const fallback = await start({ port: blocker.port });
        await fallback.close();
        expect(fallback.port).toBeGreaterThan(blocker.port);
        expect(fallback.port).toBeLessThanOrEqual(blocker.port + 20);
        expect(logs).toContain(`warn: MQTT port ${blocker.port} is in use, using ${fallback.port} instead`);
      } finally {
        await blocker.close();
      }
    });

    it('with strictPort rejects naming the port in use', async () => {
      const blocker = await listenPlain();
      try {
        await expect(start({ port: blocker.port, strictPort: true })).rejects.toThrow(
          `MQTT port ${blocker.port} on 127.0.0.1 is in use`,
        );
      } finally {
        await blocker.close();
      }
    });

    it('sets TCP_NODELAY on every accepted socket', async () => {
      const setNoDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
      const sockets = setNoDelay.mock.contexts as Socket[];
      const a = await clients.connect(METER_A);
      const clientPort = (a.stream as Socket).localPort;
      const serverSide = sockets.findIndex(
        (socket) => socket.localPort === broker.port && socket.remotePort === clientPort,
      );
      expect(serverSide).toBeGreaterThanOrEqual(0);
      expect(setNoDelay.mock.calls[serverSide]).toEqual([true]);
    });

    it('close() disconnects clients and frees the port', async () => {
      const a = await clients.connect(METER_A);
      const aClosed = closed(a);
      await broker.close();
      await aClosed;
      const again = await start({ port: broker.port, strictPort: true });
      expect(again.port).toBe(broker.port);
      await again.close();
    });
  });

  const MOSQUITTO_SUB = '/usr/bin/mosquitto_sub';
  it('a third-party client (mosquitto_sub) with service credentials reads what a meter published', async (ctx) => {
    if (!existsSync(MOSQUITTO_SUB)) {
      if (process.env.CI === 'true')
        throw new Error(`${MOSQUITTO_SUB} is missing; CI must install mosquitto-clients`);
      ctx.skip(`${MOSQUITTO_SUB} not found: install mosquitto-clients to run this test`);
    }
    const subscribed = new Promise<void>((resolve) => {
      broker.aedes.on('subscribe', (_subs, client) => client.id === 'mosq-reader' && resolve());
    });
    const args = ['-V', 'mqttv311', '-h', '127.0.0.1', '-p', String(broker.port), '-i', 'mosq-reader'];
    args.push(
      '-u',
      SERVICE.username,
      '-P',
      SERVICE.password,
      '-t',
      'meterstack/v1/+/telemetry',
      '-v',
      '-C',
      '1',
    );
    const child = spawn(MOSQUITTO_SUB, [...args, '-W', '10'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const early = exited.then((code) => Promise.reject(new Error(`mosquitto_sub exited ${code}: ${output}`)));
    await Promise.race([subscribed, early]);
    const a = await clients.connect(METER_A);
    await a.publishAsync(topicFor('A', 'telemetry'), '{"kwh":12.5}', { qos: 1 });
    expect(await exited).toBe(0);
    expect(output.trim()).toBe('meterstack/v1/A/telemetry {"kwh":12.5}');
  });
});
