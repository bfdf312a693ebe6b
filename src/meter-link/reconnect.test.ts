// The link's optional reconnection backoff (decision 171) and its service-announcement watch [MC-12.2],
// against a real aedes broker on an ephemeral port. The waits are shortened; what is checked is the
// sequence of waits and events, never how long anything took.

import { createServer, type Server, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVICE_TOPIC, topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { LinkEvent } from './events.ts';
import { MeterLink, type MeterLinkOptions } from './link.ts';
import { Backoff } from './reconnect.ts';
import { testInfo, testState } from './test-helpers.ts';

const ID = 'MTR-BACKOFF-1';
const info = testInfo(ID);
const state = testState;

interface RunningBroker {
  aedes: Aedes;
  sockets: Socket[];
  close(): Promise<void>;
}

const brokers: RunningBroker[] = [];
const links: MeterLink[] = [];

afterEach(async () => {
  await Promise.all(links.splice(0).map((l) => l.close({ goodbye: false })));
  await Promise.all(brokers.splice(0).map((b) => b.close()));
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

async function startAedes(
  port: number,
  opts: ConstructorParameters<typeof Aedes>[0] = {},
): Promise<RunningBroker> {
  const aedes = await Aedes.createBroker(opts);
  const sockets: Socket[] = [];
  const server: Server = createServer((socket) => {
    sockets.push(socket);
    aedes.handle(socket);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const b = {
    aedes,
    sockets,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  brokers.push(b);
  return b;
}

function link(port: number, events: LinkEvent[], over: Partial<MeterLinkOptions> = {}): MeterLink {
  const l = new MeterLink({
    url: `mqtt://127.0.0.1:${port}`,
    deviceId: ID,
    password: 'x',
    now: () => 1_732_270_000_000,
    info: () => info,
    state,
    answer: () => ({ ok: true }),
    onEvent: (e) => events.push(e),
    ...over,
  });
  links.push(l);
  return l;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const retries = (events: LinkEvent[]) => events.flatMap((e) => (e.type === 'retrying' ? [e] : []));

describe('reconnection backoff (decision 171)', () => {
  it('Backoff doubles from the first wait to the cap, and starts over after a success', () => {
    const b = new Backoff({ firstMs: 1_000, maxMs: 30_000 });
    expect([1, 2, 3, 4, 5, 6, 7].map(() => b.next())).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    b.reset();
    expect(b.next()).toBe(1000);
  });

  it('a broker that is down is tried after waits that double to the cap; once it is back, a loss starts over', async () => {
    const port = await freePort();
    const events: LinkEvent[] = [];
    const l = link(port, events, { backoff: { firstMs: 20, maxMs: 80 } });
    void l.connect();
    await until(() => retries(events).length >= 5, 'five retries');
    expect(
      retries(events)
        .map((e) => e.inMs)
        .slice(0, 5),
    ).toEqual([20, 40, 80, 80, 80]);
    expect(retries(events)[0]!.error?.message).toMatch(/ECONNREFUSED/);

    const broker = await startAedes(port);
    await until(() => events.some((e) => e.type === 'announced'), 'announced once the broker is back');
    const before = retries(events).length;
    for (const s of broker.sockets) s.destroy(); // the connection is lost
    await until(() => retries(events).length > before, 'a retry after the loss');
    expect(retries(events)[before]!.inMs).toBe(20);
  });

  it('[SP-7.5] CONNACK 3 keeps its own retry after retryUnavailableMs, not the backoff', async () => {
    const port = await freePort();
    await startAedes(port, {
      authenticate: (_client, _user, _password, done) => {
        const error = Object.assign(new Error('unavailable'), { returnCode: 3 });
        done(error as Parameters<typeof done>[0], false);
      },
    });
    const events: LinkEvent[] = [];
    const l = link(port, events, { backoff: { firstMs: 20, maxMs: 80 }, retryUnavailableMs: 30 });
    void l.connect();
    await until(() => events.filter((e) => e.type === 'unavailable').length >= 3, 'three CONNACK 3 retries');
    expect(retries(events)).toEqual([]);
  });
});

describe('[MC-12.2] the service announcement', () => {
  const announcement = { v: 1, name: 'meterstack', version: '9.9.9', http: 'http://127.0.0.1:1' };

  function announce(broker: RunningBroker, payload: unknown, retain: boolean): Promise<void> {
    return new Promise((resolve) =>
      broker.aedes.publish(
        {
          cmd: 'publish',
          topic: SERVICE_TOPIC,
          payload: Buffer.from(JSON.stringify(payload)),
          qos: 1,
          retain,
          dup: false,
        },
        () => resolve(),
      ),
    );
  }

  it('the retained announcement is seen right after connecting', async () => {
    const port = await freePort();
    const broker = await startAedes(port);
    await announce(broker, announcement, true);
    const events: LinkEvent[] = [];
    void link(port, events, { awaitServiceMs: 10_000 }).connect();
    await until(() => events.some((e) => e.type === 'service'), 'the service event');
    expect(events.find((e) => e.type === 'service')).toEqual({ type: 'service', announcement });
    expect(events.some((e) => e.type === 'service_missing')).toBe(false);
  });

  it('a broker without it is service_missing; an announcement that comes later is still seen, and is no command', async () => {
    const port = await freePort();
    const broker = await startAedes(port);
    const events: LinkEvent[] = [];
    const l = link(port, events, { awaitServiceMs: 20 });
    void l.connect();
    await until(() => events.some((e) => e.type === 'service_missing'), 'service_missing');
    expect(events.find((e) => e.type === 'service_missing')).toEqual({
      type: 'service_missing',
      topic: 'meterstack/v1/service',
      waitedMs: 20,
    });
    await announce(broker, { v: 1, name: 'not-meterstack' }, false); // not an announcement: ignored
    await announce(broker, announcement, false);
    await until(() => events.some((e) => e.type === 'service'), 'the late announcement');
    expect(events.filter((e) => e.type === 'bad_command' || e.type === 'command_failed')).toEqual([]);
    expect(l.ready).toBe(true);
  });

  it('[MC-6.8] an offline with a reason says it; online says none', async () => {
    const port = await freePort();
    const broker = await startAedes(port);
    const seen: unknown[] = [];
    broker.aedes.on('publish', (packet, client) => {
      if (client && packet.topic === topicFor(ID, 'availability'))
        seen.push(JSON.parse(packet.payload.toString()));
    });
    const events: LinkEvent[] = [];
    const l = link(port, events);
    await l.connect();
    l.setAvailable(false, 'serial port closed (disconnected)');
    await until(() => seen.length >= 2, 'the offline');
    l.setAvailable(true, 'ignored');
    await until(() => seen.length >= 3, 'the online');
    expect(seen.map((s) => ({ ...(s as object), ts: 0 }))).toEqual([
      { v: 1, online: true, ts: 0 },
      { v: 1, online: false, ts: 0, reason: 'serial port closed (disconnected)' },
      { v: 1, online: true, ts: 0 },
    ]);
  });
});
