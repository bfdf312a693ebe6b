// Issue 19: the floor a PUT relay cannot go under while each virtual meter is a real MQTT client of the
// embedded broker. A relay makes four QoS 1 messages [MC-8]: the command (service → meter), then the
// reply, the retained state and the telemetry sample of the instant the current stopped or started
// (meter → service) [M-32]. This bench sends exactly those four, with payloads of the sizes the codec
// writes, and nothing else: no HTTP, no twin, no pure meter, no store, no events. What it costs per
// exchange is what the MQTT part of one relay costs the service's process.
//
// Run: npx tsx bench/relay-floor.ts [--seconds 4] [--rounds 3]
//
// Beside it, in the same script:
// - the same exchange over loopback TCP to the same embedded broker (what the in-memory transport saves);
// - the same exchange through Debian's Mosquitto (clients in this process, the broker's CPU apart): the
//   clients' own share, with a broker that costs this process nothing;
// - the peer of bench/api.ts: a bare fastify GET (a child process) on 10 connections, its CPU per request.
//
// Issue 19 asks PUT relay for >= 0.3× bare GET's rate at 10 connections. With the server's core the
// bottleneck in both, that is a relay at <= bare GET's CPU / 0.3 per request. The last line compares that
// budget with this floor plus one bare GET (the relay's HTTP request costs at least that).

import { type ChildProcess, spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { MqttClient } from 'mqtt';
import { commandToWire, encode, replyToWire } from '../firmware-protocol/mqtt/codec.ts';
import { PUBLISH_OPTIONS, topicFor } from '../firmware-protocol/mqtt/topics.ts';
import type { Principal } from '../src/broker/access.ts';
import { startBroker } from '../src/broker/broker.ts';
import { connectMqtt, createMeterClient } from '../src/mqtt/connect.ts';
import { startBenchMosquitto } from './support/mosquitto.ts';
import { cpuSecondsOf } from './support/proc.ts';

const SELF = fileURLToPath(import.meta.url);
const METERS = 10; // one exchange in flight per meter: bench/api.ts's 10 connections
const RELAY_VS_BARE_GET_TARGET = 0.3;

// Payloads as the meter and the service write them (sizes within a few bytes of the real ones).
const CMD = (id: string) => encode('cmd', commandToWire(id, { op: 'set_relay', on: false }));
const REPLY = (id: string) => encode('reply', replyToWire(id, { ok: true }));
const STATE = JSON.stringify({
  ts: 1_780_000_000_000,
  mode: 'postpaid',
  relay_commanded: false,
  relay_state: false,
  eb_tariff: 800,
  dg_tariff: 1800,
  active_tariff: 'eb',
  balance: 0,
  pg_enabled: false,
  wifi_type: 'Primary',
});
const TELEMETRY = JSON.stringify({
  samples: [
    {
      ts: 1_780_000_000_000,
      energy: 1234.567,
      active_power: 0,
      voltage: 231.4,
      current: 0,
      power_factor: 1,
      frequency: 50.01,
      reactive_power: 0,
      dg_energy: 12.5,
      balance: 0,
    },
  ],
});

function authenticate(username: string, password: string): Principal | null {
  if (username === 'service') return password === 'svc-secret' ? { kind: 'service' } : null;
  return password === `secret-${username}` ? { kind: 'meter', deviceId: username } : null;
}

interface Figures {
  exchanges: number;
  /** This process's CPU µs per exchange (both clients, and the broker when it is embedded). */
  usPerExchange: number;
  /** The external broker's CPU µs per exchange, when there is one. */
  brokerUs?: number;
}

let runCount = 0;

/** 10 meters answer each command with reply, state and telemetry; the service keeps one command in flight per meter. */
async function exchanges(
  url: string,
  transport: 'auto' | 'tcp',
  seconds: number,
  brokerCpu?: () => number,
): Promise<Figures> {
  const service = await connectMqtt({
    url,
    transport,
    clientId: 'service',
    username: 'service',
    password: 'svc-secret',
    reconnectPeriod: 0,
    coalesceWrites: true, // as the twins connect (src/devices/twins.ts)
    packetLog: false,
  });
  // Ids of this run only: the retained states of an earlier run are never delivered to it.
  const run = ++runCount;
  const ids = Array.from({ length: METERS }, (_, i) => `MTR-FLOOR-${run}-${i}`);
  const meters: MqttClient[] = [];
  for (const deviceId of ids) {
    const meter = createMeterClient({
      url,
      transport,
      deviceId,
      password: `secret-${deviceId}`,
      reconnectPeriod: 0,
    });
    await new Promise<void>((resolve, reject) =>
      meter.once('connect', () => resolve()).once('error', reject),
    );
    await meter.subscribeAsync(topicFor(deviceId, 'cmd'), { qos: 1 });
    meter.on('message', (_topic, payload) => {
      const { id } = JSON.parse(payload.toString()) as { id: string };
      meter.publish(topicFor(deviceId, 'reply'), REPLY(id), PUBLISH_OPTIONS.reply);
      meter.publish(topicFor(deviceId, 'state'), STATE, PUBLISH_OPTIONS.state);
      meter.publish(topicFor(deviceId, 'telemetry'), TELEMETRY, PUBLISH_OPTIONS.telemetry);
    });
    meters.push(meter);
  }
  // The twins' subscriptions: state and reply at QoS 0, telemetry at QoS 1 (src/devices/subscriptions.ts).
  await service.subscribeAsync({
    'meterstack/v1/+/reply': { qos: 0 },
    'meterstack/v1/+/state': { qos: 0 },
    'meterstack/v1/+/telemetry': { qos: 1 },
  });

  let done = 0;
  let stopAt = Number.POSITIVE_INFINITY;
  let finish: () => void = () => {};
  const finished = new Promise<void>((r) => (finish = r));
  const left = new Map<string, number>();
  let n = 0;
  let inFlight = 0;
  const send = (deviceId: string) => {
    if (performance.now() >= stopAt) {
      if (--inFlight === 0) finish();
      return;
    }
    left.set(deviceId, 3);
    service.publish(topicFor(deviceId, 'cmd'), CMD(`c${++n}`), PUBLISH_OPTIONS.cmd);
  };
  service.on('message', (topic, _payload, packet) => {
    if (packet.retain) return; // a retained state delivered on subscribing, not an answer
    const deviceId = topic.split('/')[2]!;
    const l = left.get(deviceId)! - 1;
    left.set(deviceId, l);
    if (l === 0) {
      done++;
      send(deviceId);
    }
  });

  // 1 s of warm-up, then the measured window.
  stopAt = performance.now() + 1_000;
  inFlight = METERS;
  for (const id of ids) send(id);
  await finished;
  await new Promise((r) => setTimeout(r, 50)); // the warm-up's last acknowledgements drain first
  const cpu0 = process.cpuUsage();
  const broker0 = brokerCpu?.() ?? 0;
  const done0 = done;
  const finished2 = new Promise<void>((r) => (finish = r));
  stopAt = performance.now() + seconds * 1_000;
  inFlight = METERS;
  for (const id of ids) send(id);
  await finished2;
  const cpu = process.cpuUsage(cpu0);
  const count = done - done0;
  const figures: Figures = {
    exchanges: count,
    usPerExchange: (cpu.user + cpu.system) / count,
  };
  if (brokerCpu) figures.brokerUs = ((brokerCpu() - broker0) * 1e6) / count;
  await Promise.all([service.endAsync(true), ...meters.map((m) => m.endAsync(true))]);
  return figures;
}

// ---------------------------------------------------------------------------------------------------
// The peer of bench/api.ts: a bare fastify GET in a child process.

async function runBareServer(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  const body = { device_id: 'MTR-FLOOR-0', name: 'x'.repeat(900) }; // ~1 KB, as GET device's body
  app.get('/api/v2/devices/:device_id/', async () => ({ ...body, timestamp: new Date().toISOString() }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`BARE ${url}\n`);
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

async function bareGetUs(seconds: number): Promise<number> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', SELF, '--bare'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /BARE (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) =>
        reject(new Error(`the bare fastify child exited (${code}) before listening`)),
      );
    });
    const path = `${url}/api/v2/devices/MTR-FLOOR-0/`;
    await autocannon({ url: path, connections: 10, duration: 1 });
    const cpu0 = cpuSecondsOf(child.pid!);
    const r = await autocannon({ url: path, connections: 10, duration: seconds });
    return ((cpuSecondsOf(child.pid!) - cpu0) * 1e6) / r.requests.total;
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

// ---------------------------------------------------------------------------------------------------

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '4' }, rounds: { type: 'string', default: '3' } },
  });
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  console.log('meterstack relay floor (issue 19): the four QoS 1 messages of a PUT relay, nothing else');
  console.log(`machine: ${cpus().length} CPU(s), ${cpus()[0]?.model}; node ${process.version}`);
  console.log(`${METERS} meters, one exchange in flight each; ${rounds} rounds of ${seconds} s, medians\n`);

  const embedded = await startBroker({ port: 0, authenticate });
  const mosquitto = await startBenchMosquitto();
  const runs: Record<'inMemory' | 'tcp' | 'mosquitto', Figures[]> = { inMemory: [], tcp: [], mosquitto: [] };
  const bare: number[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      runs.inMemory.push(await exchanges(embedded.url, 'auto', seconds));
      runs.tcp.push(await exchanges(embedded.url, 'tcp', seconds));
      runs.mosquitto.push(await exchanges(mosquitto.url, 'tcp', seconds, () => mosquitto.cpuSeconds()));
      bare.push(await bareGetUs(seconds));
      const f = (x: Figures) => `${x.usPerExchange.toFixed(1)} µs`;
      console.log(
        `  round ${r + 1}: embedded in memory ${f(runs.inMemory.at(-1)!)}, embedded over TCP ${f(runs.tcp.at(-1)!)}, ` +
          `Mosquitto ${f(runs.mosquitto.at(-1)!)} + broker ${runs.mosquitto.at(-1)!.brokerUs!.toFixed(1)} µs; ` +
          `bare GET ${bare.at(-1)!.toFixed(1)} µs/request`,
      );
    }
  } finally {
    await embedded.close();
    await mosquitto.stop();
  }
  const med = (k: keyof typeof runs) => median(runs[k].map((x) => x.usPerExchange));
  const rate = (k: keyof typeof runs) => median(runs[k].map((x) => x.exchanges / seconds));
  const getUs = median(bare);
  const budget = getUs / RELAY_VS_BARE_GET_TARGET;
  const floor = med('inMemory') + getUs;
  console.log('\n| measurement | CPU µs (this process) | exchanges/s |');
  console.log('|---|---|---|');
  console.log(
    `| the four messages, embedded broker, in-memory transport (as serve) | ${med('inMemory').toFixed(1)} | ${rate('inMemory').toFixed(0)} |`,
  );
  console.log(`| the same over loopback TCP | ${med('tcp').toFixed(1)} | ${rate('tcp').toFixed(0)} |`);
  console.log(
    `| the same through Mosquitto (its own CPU apart: ${median(runs.mosquitto.map((x) => x.brokerUs!)).toFixed(1)} µs) | ${med('mosquitto').toFixed(1)} | ${rate('mosquitto').toFixed(0)} |`,
  );
  console.log(`| peer: bare fastify GET, per request (child process) | ${getUs.toFixed(1)} | |`);
  console.log(
    `\nA relay at ${RELAY_VS_BARE_GET_TARGET}× bare GET's rate may cost ${budget.toFixed(0)} µs; the four messages and one bare GET ` +
      `already cost ${floor.toFixed(0)} µs (${(floor / budget).toFixed(2)}× the budget), before the twin, the meter, the store and the events.`,
  );
}

if (process.argv.includes('--bare')) await runBareServer();
else await main();
