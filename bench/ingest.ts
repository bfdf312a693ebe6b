// Telemetry ingest end to end: N external meters (real mqtt.js clients with their own credentials,
// provisioned through /sim/v1) publish QoS 1 single-sample telemetry as fast as their in-flight window
// allows, to one `meterstack serve` child process; measured from the first publish to the moment the
// SQLite file holds every row. Target: >= 15,000 messages/s with zero loss.
//
// Run: npx tsx bench/ingest.ts [meters=100] [messagesPerMeter=2000] [windowPerMeter=64]

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { MqttClient } from 'mqtt';
import { encode } from '../firmware-protocol/mqtt/codec.ts';
import { topicFor } from '../firmware-protocol/mqtt/topics.ts';
import { connectMqtt } from '../src/mqtt/connect.ts';
import { pool, startServe } from './support/serve-process.ts';

const METERS = Number(process.argv[2] ?? 100);
const PER_METER = Number(process.argv[3] ?? 2_000);
const WINDOW = Number(process.argv[4] ?? 64);
const TOTAL = METERS * PER_METER;
const PERIOD_MS = 60_000;

const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-ingest-'));
const db = join(dir, 'bench.db');
const serve = await startServe(
  ['--http-port=0', '--mqtt-port=0', `--db=${db}`, '--no-demo', '--rate-limit=0', '--speed=0'],
  {
    nodeArgs: process.env.SERVE_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SERVE_CPU_PROF}`]
      : [],
  },
);
const clients: MqttClient[] = [];

/** Publishes `count` single-sample telemetry messages, at most WINDOW unacknowledged at a time. */
function publishAll(client: MqttClient, deviceId: string, start: number, count: number): Promise<void> {
  const topic = topicFor(deviceId, 'telemetry');
  let sent = 0;
  let acked = 0;
  return new Promise((resolve, reject) => {
    const sendMore = () => {
      while (sent < count && sent - acked < WINDOW) {
        const i = sent++;
        const sample = {
          ts: start + i * PERIOD_MS,
          energy: i * 0.0125,
          active_power: 750 + (i % 50),
          voltage: 230.5,
          balance: 100_000 - i,
        };
        client.publish(topic, encode('telemetry', { v: 1, samples: [sample] }), { qos: 1 }, (err) => {
          if (err) return reject(err);
          acked++;
          if (acked === count) resolve();
          else sendMore();
        });
      }
    };
    sendMore();
  });
}

try {
  console.log(
    `ingest: ${METERS} external meters × ${PER_METER} QoS 1 single-sample messages (window ${WINDOW} each) ` +
      `-> one serve process; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`,
  );
  const { account_id } = await serve.sim<{ account_id: number }>('POST', '/accounts', { name: 'bench' });
  const devices = await pool(
    Array.from({ length: METERS }, (_, i) => i),
    8,
    (i) =>
      serve.sim<{ device_id: string; mqtt: { username: string; password: string } }>('POST', '/devices', {
        account_id,
        external: true,
        device_id: `ING-${String(i).padStart(5, '0')}`,
      }),
  );
  await pool(devices, 50, async (d) => {
    const client = await connectMqtt({
      url: serve.mqttUrl,
      clientId: d.device_id,
      username: d.mqtt.username,
      password: d.mqtt.password,
      reconnectPeriod: 0,
    });
    clients.push(client);
  });

  const sqlite = new Database(db, { readonly: true });
  const count = sqlite.prepare('SELECT count(*) FROM samples').pluck();
  const base = Math.floor(Date.now() / PERIOD_MS) * PERIOD_MS - PER_METER * PERIOD_MS;
  const cpu0 = serve.cpuSeconds();
  const ownCpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(clients.map((c, i) => publishAll(c, devices[i]!.device_id, base, PER_METER)));
  const tAcked = performance.now();
  let stored = count.get() as number;
  const deadline = Date.now() + 120_000;
  while (stored < TOTAL && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
    stored = count.get() as number;
  }
  const tStored = performance.now();
  const serveCpu = serve.cpuSeconds() - cpu0;
  const ownCpu = process.cpuUsage(ownCpu0);
  sqlite.close();

  const seconds = (tStored - t0) / 1000;
  const rate = TOTAL / seconds;
  console.log(
    `  all ${TOTAL.toLocaleString('en')} PUBACKs after ${((tAcked - t0) / 1000).toFixed(2)} s; ` +
      `${stored.toLocaleString('en')} rows stored after ${seconds.toFixed(2)} s`,
  );
  console.log(
    `  ${Math.round(rate).toLocaleString('en')} messages/s end to end: ` +
      `${rate >= 15_000 && stored === TOTAL ? 'target met' : 'TARGET MISSED'} (>= 15,000/s, zero loss)`,
  );
  console.log(
    `  serve process: ${serveCpu.toFixed(2)} CPU s over ${seconds.toFixed(2)} s wall ` +
      `(${((100 * serveCpu) / seconds).toFixed(0)}% of a core), RSS ${serve.rssMiB().toFixed(0)} MiB; ` +
      `the publishing process ${((ownCpu.user + ownCpu.system) / 1e6).toFixed(2)} CPU s`,
  );

  await Promise.all(clients.map((c) => c.endAsync()));
  clients.length = 0;
  const code = await serve.stop('SIGTERM');
  const after = new Database(db, { readonly: true });
  const final = after.prepare('SELECT count(*) FROM samples').pluck().get() as number;
  after.close();
  const lost = TOTAL - final;
  console.log(`  after a clean stop (exit ${code}): ${final.toLocaleString('en')} rows, ${lost} lost`);
  process.exitCode = rate >= 15_000 && lost === 0 ? 0 : 1;
} finally {
  await Promise.all(clients.map((c) => c.endAsync(true)));
  await serve.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
