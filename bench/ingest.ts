// Telemetry ingest end to end: N external meters (real mqtt.js clients with their own credentials,
// provisioned through /sim/v1) publish QoS 1 single-sample telemetry as fast as their in-flight window
// allows, to one `meterstack serve` child process; measured from the first publish to the moment the
// SQLite file holds every row. Target: >= 15,000 messages/s with zero loss.
//
// Issue 9: the event bus and its logs at their defaults must keep >= 0.95x the rate of the same run with
// the bus off (`serve --no-events`). Each round runs both, each on a fresh serve child, in alternating
// order (on/off, off/on, ...) so that drift on a shared machine falls on both alike; the ratio is of the
// medians. serve's stdout is a pipe here, so its logs are JSON lines at info; serve-process.ts reads
// the pipe continuously, so logging can never block the child.
//
// Run: npx tsx bench/ingest.ts [meters=100] [messagesPerMeter=2000] [windowPerMeter=64] [--rounds 3]
//      [--only on|off]

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { MqttClient } from 'mqtt';
import { connectMqtt } from '../src/mqtt/connect.ts';
import { publishAll } from './support/publish.ts';
import { pool, startServe } from './support/serve-process.ts';

const { values: flags, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '3' }, only: { type: 'string' } },
  allowPositionals: true,
});
const METERS = Number(positionals[0] ?? 100);
const PER_METER = Number(positionals[1] ?? 2_000);
const WINDOW = Number(positionals[2] ?? 64);
const ROUNDS = Number(flags.rounds);
const TOTAL = METERS * PER_METER;
const PERIOD_MS = 60_000;

type Mode = 'bus on' | 'bus off';

interface Run {
  mode: Mode;
  rate: number;
  seconds: number;
  ackedS: number;
  serveCpu: number;
  ownCpu: number;
  rss: number;
  lost: number;
  exit: number | null;
  logLines: number;
}

/** One serve child, METERS clients, TOTAL messages; the serve child and its database are gone after. */
async function runOnce(mode: Mode): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-ingest-'));
  const db = join(dir, 'bench.db');
  const serve = await startServe(
    [
      '--http-port=0',
      '--mqtt-port=0',
      `--db=${db}`,
      '--no-demo',
      '--rate-limit=0',
      '--speed=0',
      ...(mode === 'bus off' ? ['--no-events'] : []),
    ],
    {
      nodeArgs: process.env.SERVE_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SERVE_CPU_PROF}`]
        : [],
    },
  );
  const clients: MqttClient[] = [];
  try {
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
    const linesBefore = serve.output().length;
    const cpu0 = serve.cpuSeconds();
    const ownCpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(
      clients.map((c, i) =>
        publishAll(c, devices[i]!.device_id, base, PER_METER, { window: WINDOW, periodMs: PERIOD_MS }),
      ),
    );
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
    const logLines = serve.output().slice(linesBefore).split('\n').length - 1;
    const rss = serve.rssMiB();
    sqlite.close();

    await Promise.all(clients.map((c) => c.endAsync()));
    clients.length = 0;
    const exit = await serve.stop('SIGTERM');
    const after = new Database(db, { readonly: true });
    const final = after.prepare('SELECT count(*) FROM samples').pluck().get() as number;
    after.close();
    const seconds = (tStored - t0) / 1000;
    return {
      mode,
      rate: TOTAL / seconds,
      seconds,
      ackedS: (tAcked - t0) / 1000,
      serveCpu,
      ownCpu: (ownCpu.user + ownCpu.system) / 1e6,
      rss,
      lost: TOTAL - final,
      exit,
      logLines,
    };
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true)));
    await serve.stop('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const n = (x: number) => Math.round(x).toLocaleString('en');

console.log(
  `ingest: ${METERS} external meters × ${PER_METER} QoS 1 single-sample messages (window ${WINDOW} each) ` +
    `-> one serve process per run; bus on (logs at their defaults, JSON on a pipe) vs --no-events, ` +
    `${ROUNDS} round(s) interleaved; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`,
);
const modes: Mode[] =
  flags.only === 'on' ? ['bus on'] : flags.only === 'off' ? ['bus off'] : ['bus on', 'bus off'];
const runs: Run[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? modes : [...modes].reverse();
  for (const mode of order) {
    const run = await runOnce(mode);
    runs.push(run);
    console.log(
      `  round ${r + 1} ${mode.padEnd(7)}: ${n(run.rate).padStart(6)} msg/s (PUBACKs ${run.ackedS.toFixed(2)} s, ` +
        `stored ${run.seconds.toFixed(2)} s), serve ${run.serveCpu.toFixed(2)} CPU s = ` +
        `${((1e6 * run.serveCpu) / TOTAL).toFixed(1)} µs/msg, RSS ${run.rss.toFixed(0)} MiB, ` +
        `publisher ${run.ownCpu.toFixed(2)} CPU s, ${run.logLines} log lines, lost ${run.lost}, exit ${run.exit}; ` +
        `load ${loadavg()[0]!.toFixed(2)}`,
    );
  }
}

const rates = (mode: Mode) => runs.filter((r) => r.mode === mode).map((r) => r.rate);
const cpuPerMsg = (mode: Mode) => runs.filter((r) => r.mode === mode).map((r) => (1e6 * r.serveCpu) / TOTAL);
const lost = runs.reduce((s, r) => s + r.lost, 0);
for (const mode of modes) {
  const m = median(rates(mode));
  console.log(
    `  ${mode}: median ${n(m)} msg/s, ${median(cpuPerMsg(mode)).toFixed(1)} µs serve CPU/msg: ` +
      `${m >= 15_000 ? 'target met' : 'TARGET MISSED'} (>= 15,000/s)`,
  );
}
if (modes.length === 2) {
  const ratio = median(rates('bus on')) / median(rates('bus off'));
  const cpuRatio = median(cpuPerMsg('bus on')) / median(cpuPerMsg('bus off'));
  console.log(
    `  bus on / bus off: ${ratio.toFixed(3)}× the rate (${ratio >= 0.95 ? 'target met' : 'TARGET MISSED'}, ` +
      `>= 0.95), ${cpuRatio.toFixed(3)}× the serve CPU per message`,
  );
}
console.log(`  lost over all runs: ${lost} (target 0); load now ${loadavg()[0]!.toFixed(2)}`);
