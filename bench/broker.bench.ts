// Broker benchmark: QoS 1 command/reply round trip, and many meters connecting at once.
// Run: npx tsx bench/broker.bench.ts [roundTrips=5000] [meters=2000]
// Broker and clients share this process, so RSS covers both sides.
//
// The broker sets TCP_NODELAY on its sockets, but mqtt.js does not on its own: with Nagle on
// either end a round trip costs ~44 ms (the peer's delayed ACK). The main figure sets it on the
// client sockets too; a short run with mqtt.js defaults shows the difference.

import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import { topicFor } from '../firmware-protocol/mqtt/topics.ts';
import type { Principal } from '../src/broker/access.ts';
import { startBroker } from '../src/broker/broker.ts';

const ROUND_TRIPS = Number(process.argv[2] ?? 5_000);
const METERS = Number(process.argv[3] ?? 2_000);
const NAGLE_ROUND_TRIPS = 200;
const WARMUP = 200;
const CONNECT_CONCURRENCY = 100;

function authenticate(username: string, password: string): Principal | null {
  if (username === 'service') return password === 'svc-secret' ? { kind: 'service' } : null;
  const match = /^meter-(\d+)$/.exec(username);
  return match && password === `secret-${match[1]}` ? { kind: 'meter', deviceId: `m${match[1]}` } : null;
}

function meterOptions(i: number): IClientOptions {
  return { clientId: `m${i}`, username: `meter-${i}`, password: `secret-${i}`, reconnectPeriod: 0 };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** mqtt.js has no noDelay option; set it on each new connection's socket. */
function noDelay(client: MqttClient): MqttClient {
  const apply = () => (client.stream as Socket).setNoDelay?.(true);
  apply();
  client.on('connect', apply);
  return client;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Service publishes a cmd with a transaction id; the meter answers on its reply topic. */
async function benchRoundTrip(url: string, roundTrips: number, clientNoDelay: boolean): Promise<void> {
  const tune = clientNoDelay ? noDelay : (client: MqttClient) => client;
  const service = tune(
    await connectAsync(url, { clientId: 'service', username: 'service', password: 'svc-secret' }),
  );
  const meter = tune(await connectAsync(url, meterOptions(0)));
  const cmd = topicFor('m0', 'cmd');
  const reply = topicFor('m0', 'reply');

  await meter.subscribeAsync(cmd, { qos: 1 });
  meter.on('message', (_topic, payload) => {
    const { transaction } = JSON.parse(payload.toString()) as { transaction: number };
    meter.publish(reply, JSON.stringify({ transaction, status: 'ok' }), { qos: 1 });
  });
  await service.subscribeAsync('meterstack/v1/+/reply', { qos: 1 });

  const waiting = new Map<number, () => void>();
  service.on('message', (_topic, payload) => {
    const { transaction } = JSON.parse(payload.toString()) as { transaction: number };
    waiting.get(transaction)?.();
    waiting.delete(transaction);
  });
  const roundTrip = (transaction: number) =>
    new Promise<void>((resolve) => {
      waiting.set(transaction, resolve);
      service.publish(cmd, JSON.stringify({ transaction, action: 'relay', on: true }), { qos: 1 });
    });

  for (let t = 0; t < WARMUP; t++) await roundTrip(-1 - t);
  const samples: number[] = [];
  const started = performance.now();
  for (let t = 0; t < roundTrips; t++) {
    const t0 = performance.now();
    await roundTrip(t);
    samples.push(performance.now() - t0);
  }
  const elapsed = performance.now() - started;
  samples.sort((a, b) => a - b);
  const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length;
  const label = clientNoDelay ? 'TCP_NODELAY on both ends' : 'mqtt.js default, Nagle on client sockets';
  console.log(`QoS 1 cmd -> reply round trip, ${roundTrips} sequential after ${WARMUP} warm-up (${label}):`);
  console.log(
    `  p50 ${percentile(samples, 50).toFixed(3)} ms  p99 ${percentile(samples, 99).toFixed(3)} ms  ` +
      `mean ${mean.toFixed(3)} ms  max ${samples.at(-1)?.toFixed(3)} ms  (${((roundTrips / elapsed) * 1000).toFixed(0)} rt/s)`,
  );
  await Promise.all([service.endAsync(), meter.endAsync()]);
}

/** Connects METERS meters, CONNECT_CONCURRENCY at a time, each with its own credentials. */
async function benchConnect(url: string, connectedClients: () => number): Promise<void> {
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const meters: MqttClient[] = [];
  const started = performance.now();
  let next = 1;
  async function worker(): Promise<void> {
    while (next <= METERS) {
      const i = next++;
      meters.push(await connectAsync(url, meterOptions(i)));
    }
  }
  await Promise.all(Array.from({ length: CONNECT_CONCURRENCY }, worker));
  const elapsed = performance.now() - started;
  global.gc?.();
  const rssAfter = process.memoryUsage().rss;
  console.log(`${METERS} meters connecting (${CONNECT_CONCURRENCY} in flight, own credentials each):`);
  console.log(
    `  ${elapsed.toFixed(0)} ms total, ${((METERS / elapsed) * 1000).toFixed(0)} connects/s; broker reports ${connectedClients()} connected`,
  );
  console.log(
    `  RSS ${mib(rssBefore)} -> ${mib(rssAfter)} (+${mib(rssAfter - rssBefore)}, ` +
      `${((rssAfter - rssBefore) / METERS / 1024).toFixed(1)} KiB per meter, client and broker side together)`,
  );
  await Promise.all(meters.map((meter) => meter.endAsync(true)));
}

const broker = await startBroker({ port: 0, authenticate });
console.log(`broker on ${broker.url}, node ${process.version}`);
try {
  await benchRoundTrip(broker.url, ROUND_TRIPS, true);
  await benchRoundTrip(broker.url, NAGLE_ROUND_TRIPS, false);
  await benchConnect(broker.url, broker.connectedClients);
} finally {
  await broker.close();
}
