// The crash of `serve` at SIGTERM with 10,000 meters, reduced to the broker: a subscriber that stops
// reading holds aedes' 100 in-flight slots, meters' messages queue behind them, and when that subscriber
// leaves every queued message matches nothing. Without routing-guard.ts that backlog drains as one
// recursion and the process dies of `RangeError: Maximum call stack size exceeded` (mqemitter/qlobber).

import { Aedes } from 'aedes';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { topicFor } from '../../firmware-protocol/mqtt/topics.ts';
import type { Principal } from './access.ts';
import { type Broker, startBroker } from './broker.ts';
import { guardRoutingStack } from './routing-guard.ts';
import { nextMessage, subscribe, TestClients } from './test-helpers.ts';

// ~420 messages of each meter are read before aedes waits for them (one socket read): 40 meters queue
// ~17,000, twice what overflowed Node's default stack here.
const METERS = 40;
const EACH = 1_000;

const authenticate = (username: string): Principal =>
  username === 'service' ? { kind: 'service' } : { kind: 'meter', deviceId: username };
const login = (name: string, clientId = name) => ({ clientId, username: name, password: 'x' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Resolves with `count()` once it has not changed for 300 ms. */
async function whenSteady(count: () => number): Promise<number> {
  for (let last = -1; count() !== last; ) {
    last = count();
    await sleep(300);
  }
  return count();
}

describe('routing guard', () => {
  let broker: Broker;
  let clients: TestClients;

  beforeEach(async () => {
    broker = await startBroker({ port: 0, authenticate });
    clients = new TestClients(broker.url);
  });

  afterEach(async () => {
    await clients.endAll();
    await broker.close();
  });

  it('a subscriber leaving with ~17,000 unmatched messages queued behind it: routing goes on', async () => {
    const stalled = await clients.connect(login('service', 'stalled'));
    expect(await subscribe(stalled, `meterstack/v1/+/telemetry`, 0)).toBe(0);
    stalled.stream.pause(); // its socket buffers fill, and aedes' in-flight deliveries wait for a drain
    // A healthy peer on the same topic sees the broker stall once the 100 slots wait on `stalled`.
    const peer = await clients.connect(login('service', 'peer'));
    await subscribe(peer, topicFor('BIG', 'telemetry'), 0);
    let routed = 0;
    peer.on('message', () => routed++);
    const big = await clients.connect(login('BIG'));
    for (let i = 0; i < 400; i++) big.publish(topicFor('BIG', 'telemetry'), Buffer.alloc(65_536), { qos: 0 });
    expect(await whenSteady(() => routed)).toBeLessThan(400);

    const meters = await Promise.all(
      Array.from({ length: METERS }, (_, i) => clients.connect(login(`M${i}`))),
    );
    meters.forEach((m, i) => {
      for (let k = 0; k < EACH; k++) m.publish(topicFor(`M${i}`, 'telemetry'), 'x', { qos: 0 });
    });
    await sleep(1_000); // loopback: each meter's first read is queued within milliseconds
    await stalled.endAsync(true); // the backlog now matches nothing

    // Every meter's flood is routed to its end: aedes reads a meter's next packets only once the last
    // ones are routed, so a drain cut short by an exception leaves a meter whose last PUBACK never comes.
    const last = meters.map((m, i) => m.publishAsync(topicFor(`M${i}`, 'telemetry'), 'last', { qos: 1 }));
    await expect(within(Promise.all(last), 10_000, 'every meter flood routed')).resolves.toHaveLength(METERS);
    // And a new subscriber gets a new message.
    const watcher = await clients.connect(login('service', 'watcher'));
    await subscribe(watcher, topicFor('M0', 'state'), 0);
    const next = nextMessage(watcher, 5_000);
    meters[0]!.publish(topicFor('M0', 'state'), 'still here', { qos: 0 });
    expect((await next).payload).toBe('still here');
  });

  it('refuses a depth that is not a positive integer', async () => {
    const aedes = await Aedes.createBroker();
    expect(() => guardRoutingStack(aedes, 0)).toThrow(TypeError);
    await new Promise<void>((r) => aedes.close(() => r()));
  });
});
