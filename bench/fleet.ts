// A fleet of virtual meters on one `meterstack serve`: METERS VirtualMeters (the pure meter driven over
// real MQTT, exactly as in serve) run in this process as `external` devices provisioned through /sim/v1,
// each publishing telemetry every PERIOD_S seconds of real time for DURATION_S seconds, to a serve child
// process (--no-demo --rate-limit 0). Reports connect time, the serve process's resident memory, and
// checks that every sample the meters published is in the SQLite file after a clean stop.
// Target: >= 10,000 meters, telemetry every 10 s, zero lost readings.
//
// Run: npx tsx bench/fleet.ts [meters=10000] [durationS=60] [periodS=10]

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { VirtualClock } from '../simulator/clock.ts';
import { Fleet } from '../simulator/meter-fleet.ts';
import { connectMqtt } from '../src/mqtt/connect.ts';
import { meterFor, provisionExternal } from './support/external-fleet.ts';
import { pool, startServe } from './support/serve-process.ts';

const METERS = Number(process.argv[2] ?? 10_000);
const DURATION_S = Number(process.argv[3] ?? 60);
const PERIOD_S = Number(process.argv[4] ?? 10);
const PERIOD_MS = PERIOD_S * 1000;

const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-fleet-'));
const db = join(dir, 'bench.db');
const mib = (x: number) => `${x.toFixed(0)} MiB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const serve = await startServe(
  ['--http-port=0', '--mqtt-port=0', `--db=${db}`, '--no-demo', '--rate-limit=0'],
  {
    nodeArgs: process.env.SERVE_CPU_PROF
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SERVE_CPU_PROF}`]
      : [],
  },
);
const clock = new VirtualClock();
const fleet = new Fleet({ clock, tickMs: 250 });
let warnings = 0;
const firstWarnings: string[] = [];
const log = (level: string, msg: string) => {
  if (level === 'info') return;
  warnings++;
  if (firstWarnings.length < 5) firstWarnings.push(msg);
};

try {
  console.log(
    `fleet: ${METERS.toLocaleString('en')} VirtualMeters (external devices) in this process, telemetry every ` +
      `${PERIOD_S} s for ${DURATION_S} s, -> one serve process (pid ${serve.pid}); ${cpus().length} cores, ` +
      `load ${loadavg()[0]!.toFixed(2)}; serve RSS at start ${mib(serve.rssMiB())}`,
  );
  const { account_id } = await serve.sim<{ account_id: number }>('POST', '/accounts', { name: 'fleet' });
  const tProvision = performance.now();
  const devices = await provisionExternal(serve, account_id, METERS, 'FLT');
  console.log(
    `  provisioned ${devices.length.toLocaleString('en')} devices via /sim/v1 in ${secs(performance.now() - tProvision)}`,
  );

  // The admin's view of the broker: how many meters announce themselves online [MC-6.3, MC-6.6].
  const watcher = await connectMqtt({
    url: serve.mqttUrl,
    clientId: 'fleet-bench-watcher',
    username: 'admin',
    password: serve.adminToken,
  });
  watcher.on('error', (err) => log('warn', `watcher: ${err.message}`));
  const online = new Set<string>();
  watcher.on('message', (topic, payload) => {
    const id = topic.split('/')[2]!;
    if ((JSON.parse(payload.toString()) as { online: boolean }).online) online.add(id);
    else online.delete(id);
  });
  await watcher.subscribeAsync('meterstack/v1/+/availability', { qos: 1 });

  const meters = meterFor(devices, { clock, mqttUrl: serve.mqttUrl, periodMs: PERIOD_MS, log });
  // Samples are due from each meter's first period boundary after it was made.
  const firstSampleTs = new Map(meters.map((m) => [m.id, m.state.nextTelemetryTs]));
  const connectCpu0 = serve.cpuSeconds();
  const ownCpu0 = process.cpuUsage();
  const tConnect = performance.now();
  await pool(meters, 200, (m) => fleet.add(m));
  const connectMs = performance.now() - tConnect;
  const connectCpu = serve.cpuSeconds() - connectCpu0;
  const ownCpu = process.cpuUsage(ownCpu0);
  const connected = meters.filter((m) => m.connected).length;
  const deadline = Date.now() + 30_000;
  while (online.size < METERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const seenMs = performance.now() - tConnect;
  console.log(
    `  connected ${connected.toLocaleString('en')} meters (CONNECT, SUBSCRIBE cmd, info, state, online) in ${secs(connectMs)}` +
      ` (${Math.round(connected / (connectMs / 1000)).toLocaleString('en')}/s); the admin client saw ` +
      `${online.size.toLocaleString('en')} online after ${secs(seenMs)}; serve RSS ${mib(serve.rssMiB())}; ` +
      `CPU: serve ${connectCpu.toFixed(1)} s, meters ${((ownCpu.user + ownCpu.system) / 1e6).toFixed(1)} s`,
  );

  fleet.start();
  const cpu0 = serve.cpuSeconds();
  const own0 = process.cpuUsage();
  const tRun = performance.now();
  let peakRss = 0;
  const rssSeries: number[] = [];
  for (let s = 1; performance.now() - tRun < DURATION_S * 1000; s++) {
    await new Promise((r) => setTimeout(r, 1000));
    peakRss = Math.max(peakRss, serve.rssMiB());
    if (s % 10 === 0) rssSeries.push(Math.round(serve.rssMiB()));
  }
  const runS = (performance.now() - tRun) / 1000;
  const serveCpu = serve.cpuSeconds() - cpu0;
  const ownRun = process.cpuUsage(own0);
  const metersCpu = (ownRun.user + ownRun.system) / 1e6;
  const stillOnline = meters.filter((m) => m.connected).length;

  await watcher.endAsync();
  const tStop = performance.now();
  await fleet.stop(); // a last tick, every queued sample acknowledged by the broker, then a clean disconnect
  const pending = meters.reduce((n, m) => n + m.pendingSamples, 0);
  // Every period's sample from the first one on, plus the sample each meter sends as it connects
  // [MC-6.7] (off the period's grid: it is a reading at the connection's instant).
  const published = meters.reduce(
    (n, m) => n + (m.lastSampleTs === 0 ? 0 : (m.lastSampleTs - firstSampleTs.get(m.id)!) / PERIOD_MS + 2),
    0,
  );
  const rssBeforeStop = serve.rssMiB();
  const hwm = serve.peakRssMiB();
  const exit = await serve.stop('SIGTERM');
  const stopMs = performance.now() - tStop;

  const sqlite = new Database(db, { readonly: true });
  const stored = sqlite.prepare('SELECT count(*) FROM samples').pluck().get() as number;
  sqlite.close();
  const lost = published - stored;
  console.log(
    `  ran ${runS.toFixed(1)} s: ${stillOnline.toLocaleString('en')} meters still connected at the end; serve used ` +
      `${serveCpu.toFixed(1)} CPU s (${((100 * serveCpu) / runS).toFixed(0)}% of a core), the meters (this process) ` +
      `${metersCpu.toFixed(1)} CPU s, together ${(serveCpu + metersCpu).toFixed(1)} s; RSS now ${mib(rssBeforeStop)}, ` +
      `peak ${mib(Math.max(peakRss, hwm))}; every 10 s: ${rssSeries.join(', ')} MiB`,
  );
  console.log(
    `  stopped the fleet and serve (exit ${exit}) in ${secs(stopMs)}; samples published ` +
      `${published.toLocaleString('en')} (${pending} unacknowledged), stored ${stored.toLocaleString('en')}, lost ${lost}`,
  );
  console.log(
    `  meter warnings: ${warnings}${firstWarnings.length ? ` e.g. ${firstWarnings.join(' | ')}` : ''}`,
  );
  const met = connected >= 10_000 && lost === 0 && pending === 0 && online.size === METERS;
  console.log(
    `  ${met ? 'target met' : 'TARGET MISSED'} (>= 10,000 meters, every ${PERIOD_S} s, zero lost readings)`,
  );
  process.exitCode = met ? 0 : 1;
} finally {
  await serve.stop('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
