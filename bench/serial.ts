// Serial bridge benchmark: the "Speed" targets of issue 4, on socat pty pairs against an in-process service.
//
// Run: npx tsx bench/serial.ts [--rounds 500] [--lines 20000] [--replugs 5]
//
// 1. Command round trip. Three paths, each timed `rounds` times (set_gateway, sequential):
//    A  MQTT only: admin client -> broker -> an echo client on the device's cmd topic -> reply -> admin;
//    B  serial only: CMD line -> pty -> serial meter -> ACK line -> pty -> here (no bridge, no MQTT);
//    C  the whole path: admin -> broker -> bridge -> pty -> serial meter -> pty -> bridge -> broker -> admin.
//    What the bridge adds = C - A - B (medians). Ptys move bytes instantly whatever the baud rate, so
//    the serial transmission time at 115200 baud (bytes x 10 bits / 115200) is computed and shown apart:
//    on a real UART the round trip is C + that time.
// 2. Telemetry throughput: this process plays the meter and writes `lines` TEL lines as fast as the pty
//    takes them; the figure is lines/s until the last sample is received by an MQTT subscriber, and the
//    loss is lines written - samples received.
// 3. Replug: kill the socat pair under a bridge and a serial meter, recreate it, and time from the pty
//    links reappearing to the availability `online: true` message on the broker.

import { existsSync, mkdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { MqttClient } from 'mqtt';
import { SerialPort } from 'serialport';
import { formatFrame } from '../firmware-protocol/serial/codec.ts';
import type { Frame } from '../firmware-protocol/serial/frames.ts';
import { LineSplitter } from '../firmware-protocol/serial/splitter.ts';
import { createMeter } from '../simulator/meter/index.ts';
import { SerialMeter } from '../simulator/serial-meter.ts';
import { Bridge } from '../src/bridge/bridge.ts';
import { connectMqtt } from '../src/mqtt/connect.ts';
import { ADMIN_MQTT_USERNAME } from '../src/service.ts';
import { PtyPair, until } from '../test/bridge/helpers.ts';
import { ADMIN_TOKEN, newAccount, provision, startTestService, tempDir } from '../test/helpers/service.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string' }, lines: { type: 'string' }, replugs: { type: 'string' } },
});
const ROUNDS = Number(values.rounds ?? 500);
const LINES = Number(values.lines ?? 20_000);
const REPLUGS = Number(values.replugs ?? 5);
const BAUD = 115_200;
const quiet = () => undefined;

const t = await startTestService();
const tmp = tempDir('meterstack-bench-serial-');
const { account_id } = await newAccount(t.sim);
const dev = (device_id: string) => provision(t.sim, { account_id, external: true, device_id });
const [echoDev, rttDev, telDev, plugDev] = [
  await dev('B-ECHO'),
  await dev('B-RTT'),
  await dev('B-TEL'),
  await dev('B-PLUG'),
];
const admin = await connectMqtt({ url: t.svc.mqttUrl, username: ADMIN_MQTT_USERNAME, password: ADMIN_TOKEN });
let pairN = 0;
async function pair(): Promise<PtyPair> {
  const dir = `${tmp.dir}/p${pairN++}`;
  mkdirSync(dir);
  return new PtyPair(dir).start();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)]!;
const fmt = (ms: number) => `${ms.toFixed(3)} ms`;

/** Admin publishes a cmd and waits for the reply with the same id. */
async function mqttRoundTrips(client: MqttClient, deviceId: string): Promise<number[]> {
  await client.subscribeAsync(`meterstack/v1/${deviceId}/reply`, { qos: 1 });
  const times: number[] = [];
  for (let i = 0; i < ROUNDS + 50; i++) {
    const id = `b-${deviceId}-${i}`;
    const start = process.hrtime.bigint();
    await new Promise<void>((resolve) => {
      const onMessage = (topic: string, payload: Buffer) => {
        if (topic.endsWith('/reply') && payload.includes(id)) {
          client.off('message', onMessage);
          resolve();
        }
      };
      client.on('message', onMessage);
      const cmd = { v: 1, id, op: 'set_gateway', enabled: i % 2 === 0 };
      client.publish(`meterstack/v1/${deviceId}/cmd`, JSON.stringify(cmd), { qos: 1 });
    });
    if (i >= 50) times.push(Number(process.hrtime.bigint() - start) / 1e6); // 50 warm-up rounds
  }
  await client.unsubscribeAsync(`meterstack/v1/${deviceId}/reply`);
  return times;
}

// ---- 1. command round trip ----

// A: MQTT only, an echo client standing in for the meter.
const echo = await connectMqtt({ ...echoDev.mqtt, clientId: echoDev.device_id });
await echo.subscribeAsync(`meterstack/v1/${echoDev.device_id}/cmd`, { qos: 1 });
echo.on('message', (_topic, payload) => {
  const { id } = JSON.parse(payload.toString()) as { id: string };
  echo.publish(`meterstack/v1/${echoDev.device_id}/reply`, JSON.stringify({ v: 1, id, ok: true }), {
    qos: 1,
  });
});
const rttA = await mqttRoundTrips(admin, echoDev.device_id);
await echo.endAsync();

// B: serial only: CMD lines straight to a serial meter.
const pB = await pair();
const meterB = new SerialMeter({
  state: createMeter({ deviceId: 'B-SERIAL' }, Date.now()),
  serial: pB.a,
  baud: BAUD,
  now: Date.now,
  log: quiet,
});
meterB.start();
const portB = new SerialPort({ path: pB.b, baudRate: BAUD });
const splitB = new LineSplitter();
let waiter: ((line: string) => void) | null = null;
portB.on('data', (chunk: Buffer) => {
  for (const p of splitB.push(chunk)) if (p.kind === 'line' && p.line.startsWith('ACK')) waiter?.(p.line);
});
await new Promise((r) => portB.once('open', r));
const rttB: number[] = [];
let cmdBytes = 0;
let ackBytes = 0;
for (let i = 0; i < ROUNDS + 50; i++) {
  const line = formatFrame({
    type: 'CMD',
    seq: i + 1,
    id: `b-serial-${i}`,
    op: 'set_gateway',
    enabled: i % 2 === 0,
  });
  const start = process.hrtime.bigint();
  const ack = await new Promise<string>((resolve) => {
    waiter = resolve;
    portB.write(`${line}\n`);
  });
  if (i >= 50) rttB.push(Number(process.hrtime.bigint() - start) / 1e6);
  cmdBytes = line.length + 1;
  ackBytes = ack.length + 1;
}
await new Promise((r) => portB.close(r));
await meterB.stop();
await pB.kill();

// C: the whole path through the bridge.
const pC = await pair();
const meterC = new SerialMeter({
  state: createMeter({ deviceId: rttDev.device_id }, Date.now()),
  serial: pC.a,
  baud: BAUD,
  now: Date.now,
  log: quiet,
});
const bridgeC = new Bridge({ serial: pC.b, baud: BAUD, broker: rttDev.mqtt, log: quiet });
meterC.start();
bridgeC.start();
await until(() => bridgeC.online, 5_000, 'bridge C online');
const rttC = await mqttRoundTrips(admin, rttDev.device_id);
await bridgeC.close();
await meterC.stop();
await pC.kill();

// The CMD and ACK of a round trip through the bridge carry the MQTT id (a UUID in the service, shorter
// here); transmission time is computed for the lines actually used.
const wireMs = ((cmdBytes + ackBytes) * 10 * 1000) / BAUD;
const added = median(rttC) - median(rttA) - median(rttB);

// ---- 2. telemetry throughput ----

const pT = await pair();
const bridgeT = new Bridge({ serial: pT.b, baud: BAUD, broker: telDev.mqtt, log: quiet });
bridgeT.start();
const portT = new SerialPort({ path: pT.a, baudRate: BAUD });
await new Promise((r) => portT.once('open', r));
const send = (f: Frame) => portT.write(`${formatFrame(f)}\n`);
const T0 = Date.now() - LINES * 1000;
send({
  type: 'HELLO',
  proto: 1,
  device_id: telDev.device_id,
  model: 'basic',
  firmware: 'bench',
  has_relay: true,
  telemetry_period_s: 0.001,
  keepalive_s: 60,
  properties: [
    { property_id: 'energy', context_type: 'cumulative', unit: 'kWh' },
    { property_id: 'active_power', context_type: 'instantaneous', unit: 'W' },
    { property_id: 'voltage', context_type: 'instantaneous', unit: 'V' },
  ],
});
send({
  type: 'STATE',
  ts: T0,
  mode: 'measurement',
  relay_commanded: true,
  relay_state: true,
  eb_tariff: 800,
  dg_tariff: 2000,
  active_tariff: 1,
  balance: 0,
  pg_enabled: false,
  wifi_type: 'Primary',
});
await until(() => bridgeT.online, 5_000, 'bridge T online');
let received = 0;
await admin.subscribeAsync(`meterstack/v1/${telDev.device_id}/telemetry`, { qos: 1 });
admin.on('message', (topic, payload) => {
  if (topic.endsWith(`${telDev.device_id}/telemetry`)) {
    received += (JSON.parse(payload.toString()) as { samples: unknown[] }).samples.length;
  }
});
let bytes = 0;
const lines: string[] = [];
for (let i = 0; i < LINES; i++) {
  const line = `${formatFrame({ type: 'TEL', ts: T0 + i + 1, energy: 10 + i / 1e6, active_power: 1234.5, voltage: 231.42, balance: 0 })}\n`;
  bytes += line.length;
  lines.push(line);
}
const telStart = process.hrtime.bigint();
for (let i = 0; i < lines.length; i += 200) portT.write(lines.slice(i, i + 200).join(''));
await new Promise((r) => portT.drain(r));
await until(() => received >= LINES, 60_000, 'every sample').catch(() => undefined);
const telMs = Number(process.hrtime.bigint() - telStart) / 1e6;
const lostTel = LINES - received;
await new Promise((r) => portT.close(r));
await bridgeT.close();
await pT.kill();

// ---- 3. replug ----

const pP = await pair();
const meterP = new SerialMeter({
  state: createMeter({ deviceId: plugDev.device_id }, Date.now()),
  serial: pP.a,
  baud: BAUD,
  now: Date.now,
  log: quiet,
  keepaliveS: 1,
});
const bridgeP = new Bridge({ serial: pP.b, baud: BAUD, broker: plugDev.mqtt, log: quiet });
meterP.start();
bridgeP.start();
await until(() => bridgeP.online, 5_000, 'bridge P online');
let lastAvailability: { online: boolean; at: number } = { online: true, at: 0 };
await admin.subscribeAsync(`meterstack/v1/${plugDev.device_id}/availability`, { qos: 1 });
admin.on('message', (topic, payload) => {
  if (topic.endsWith(`${plugDev.device_id}/availability`) && payload.length > 0) {
    lastAvailability = {
      online: (JSON.parse(payload.toString()) as { online: boolean }).online,
      at: Date.now(),
    };
  }
});
const replugMs: number[] = [];
for (let i = 0; i < REPLUGS; i++) {
  await pP.kill();
  await until(() => !lastAvailability.online, 5_000, 'offline');
  await pP.start();
  const back = Date.now();
  if (!existsSync(pP.b)) throw new Error('pty missing');
  await until(() => lastAvailability.online, 10_000, 'online again');
  replugMs.push(lastAvailability.at - back);
}
await bridgeP.close();
await meterP.stop();
await pP.kill();

await admin.endAsync();
await t.close();
tmp.remove();

console.log(`
serial bridge benchmark (socat ptys; ${ROUNDS} round trips per path, ${LINES} telemetry lines, ${REPLUGS} replugs)

1. command round trip (set_gateway), median / p99
   A  MQTT only (echo client)              ${fmt(median(rttA))} / ${fmt(p99(rttA))}
   B  serial only (pty, meter, no bridge)  ${fmt(median(rttB))} / ${fmt(p99(rttB))}
   C  whole path through the bridge        ${fmt(median(rttC))} / ${fmt(p99(rttC))}
   the bridge adds (C - A - B, medians)    ${fmt(added)}   target <= 1 ms: ${added <= 1 ? 'met' : 'MISSED'}
   serial transmission at ${BAUD} baud      ${fmt(wireMs)} (${cmdBytes} + ${ackBytes} bytes x 10 bits; ptys take ~0)

2. telemetry: ${LINES} lines (${(bytes / LINES).toFixed(0)} bytes each) in ${fmt(telMs)} = ${Math.round((received / telMs) * 1000)} lines/s, lost ${lostTel}
   target >= 2000 lines/s without loss: ${received / telMs >= 2 && lostTel === 0 ? 'met' : 'MISSED'}
   (ptys ignore the baud rate; a UART carrying this needs >= ${Math.ceil((bytes / LINES) * 10 * 2000)} baud for 2000 lines/s,
    e.g. 2,000,000 baud; at 115200 baud the wire itself caps it at ${Math.floor(BAUD / 10 / (bytes / LINES))} lines/s)

3. replug -> online on the broker: ${replugMs.map((m) => `${m} ms`).join(', ')}; worst ${Math.max(...replugMs)} ms
   target <= 2000 ms: ${Math.max(...replugMs) <= 2000 ? 'met' : 'MISSED'}
`);
process.exit(0);
