// Issue 11 §2: N virtual meters across K fleet workers (`meterstack fleet` child processes) against one
// `meterstack serve` child (embedded broker, SQLite). Reports each worker's time from spawn to every
// meter connected (registration and provisioning included), RSS per worker and per meter (over a
// 0-meter worker, the peer in the same run), the serve process's CPU over the window (the embedded
// broker, twins and ingest live there), and readings stored vs due with every gap counted as lost.
//
// Run: npm run build && npx tsx bench/fleet-workers.ts [meters=10000] [workers=4] [windowS=60] [periodS=10]
//      [--edges N] [--db sqlite|postgres]
// --edges N: the scale-out topology instead (docs/scale.md): serve on an external Mosquitto (the core,
// logins unmanaged) and N edge Mosquittos bridged to it, the workers' meters spread over the edges
// (`fleet --broker-url`): one process here may hold at most 20,000 open files (ulimit -Hn), so 50,000
// meters need several broker processes. The broker CPU is then all Mosquittos'.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { storeForBench } from './support/bench-store.ts';
import { type BenchMosquitto, startEdgeBrokers } from './support/mosquitto.ts';
import { startServe } from './support/serve-process.ts';

const { values: flags, positionals } = parseArgs({
  options: { edges: { type: 'string', default: '0' }, db: { type: 'string', default: 'sqlite' } },
  allowPositionals: true,
});
const METERS = Number(positionals[0] ?? 10_000);
const WORKERS = Number(positionals[1] ?? 4);
const WINDOW_S = Number(positionals[2] ?? 60);
const PERIOD_S = Number(positionals[3] ?? 10);
const EDGES = Number(flags.edges);
const DB_KIND = flags.db === 'postgres' ? 'postgres' : 'sqlite';
const PERIOD_MS = PERIOD_S * 1000;
const ROOT = fileURLToPath(new URL('../', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-workers-'));
const db = join(dir, 'bench.db');
const mib = (x: number) => `${x.toFixed(0)} MiB`;
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

interface Worker {
  name: string;
  proc: ChildProcess;
  out: string;
  ready: Promise<number>;
  exited: Promise<number | null>;
}

function procStatus(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}
function procCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

function startWorker(url: string, token: string, prefix: string, count: number, brokerUrl?: string): Worker {
  const t0 = performance.now();
  const proc = spawn(
    'bash',
    [
      '-c',
      `ulimit -n $(ulimit -Hn); exec node bin/meterstack.js fleet --url ${url} --admin-token ${token} ` +
        `--prefix ${prefix} --count ${count} --period-s ${PERIOD_S} --balance 10000000 --profile household:3000` +
        (brokerUrl ? ` --broker-url ${brokerUrl}` : ''),
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  process.once('exit', () => proc.kill('SIGKILL'));
  const w: Worker = {
    name: `fleet-${prefix}`,
    proc,
    out: '',
    ready: Promise.resolve(0),
    exited: new Promise((r) => proc.once('exit', (code) => r(code))),
  };
  w.ready = new Promise((resolve, reject) => {
    const onData = (d: string) => {
      w.out = (w.out + d).slice(-20_000);
      if (/meters on mqtt/.test(w.out)) resolve(performance.now() - t0);
    };
    proc.stdout!.setEncoding('utf8').on('data', onData);
    proc.stderr!.setEncoding('utf8').on('data', onData);
    proc.once('exit', (code) => {
      if (code !== 0) console.log(`  worker ${prefix} exited ${code}: ${w.out.slice(-2000)}`);
      reject(new Error(`worker ${prefix} exited ${code}`));
    });
  });
  return w;
}

// An edge holds each meter as an open file: at its limit (ulimit -Hn, 20,000 here) it refuses the rest,
// which then retry for ever and store nothing.
if (EDGES > 0) {
  const perEdge = Math.ceil(WORKERS / EDGES) * Math.ceil(METERS / WORKERS);
  if (perEdge > 19_000)
    console.log(
      `  WARNING: up to ${perEdge} meters on one edge broker, over its open-files limit: use more --edges`,
    );
}
const store = await storeForBench(DB_KIND, db);
const cluster = EDGES > 0 ? await startEdgeBrokers(EDGES) : null;
const brokers: BenchMosquitto[] = cluster ? [cluster.core, ...cluster.edges] : [];
const brokerCpu = () => brokers.reduce((s, b) => s + b.cpuSeconds(), 0);
const serve = await startServe([
  '--http-port=0',
  '--mqtt-port=0',
  `--db=${store.url}`,
  '--no-demo',
  '--rate-limit=0',
  '--log-level=warn',
  ...(cluster ? cluster.core.serveArgs : []),
]);
const workers: Worker[] = [];
try {
  const per = Math.ceil(METERS / WORKERS);
  console.log(
    `fleet-workers: ${METERS.toLocaleString('en')} meters across ${WORKERS} fleet workers (${per.toLocaleString('en')} each), ` +
      `telemetry every ${PERIOD_S} s, window ${WINDOW_S} s, -> one serve (pid ${serve.pid}, ${cluster ? `Mosquitto ${cluster.core.version}: a core and ${EDGES} edge brokers bridged to it` : 'embedded broker'}, ${DB_KIND}); ` +
      `${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`,
  );
  // The peer: a worker with no meters, for what a worker process costs before its meters.
  const empty = startWorker(serve.httpUrl, serve.adminToken, 'EMPTY', 0);
  await empty.ready;
  workers.push(empty);
  const cpuServe0 = serve.cpuSeconds();
  const tAll = performance.now();
  const fleet = Array.from({ length: WORKERS }, (_, k) =>
    startWorker(
      serve.httpUrl,
      serve.adminToken,
      `W${k + 1}x`,
      Math.min(per, METERS - k * per),
      cluster ? cluster.edges[k % EDGES]!.url : undefined,
    ),
  );
  workers.push(...fleet);
  const readyMs = await Promise.all(fleet.map((w) => w.ready));
  const allMs = performance.now() - tAll;
  console.log(
    `  connected: every worker's meters in ${secs(allMs)} (per worker, spawn to all connected: ` +
      `${readyMs.map(secs).join(', ')}); serve CPU while connecting ${(serve.cpuSeconds() - cpuServe0).toFixed(1)} s`,
  );
  // Each worker's own split: registration (the service provisions or restores its meters), then MQTT.
  const splits = fleet.map((w) => /\(registered in ([\d.]+) s, connected in ([\d.]+) s\)/.exec(w.out));
  console.log(
    `  per worker: registered in ${splits.map((m) => `${m?.[1]} s`).join(', ')}; its meters connected in ` +
      `${splits.map((m) => `${m?.[2]} s`).join(', ')}`,
  );
  await new Promise((r) => setTimeout(r, 2 * PERIOD_MS)); // settle past the connect burst
  const rssEmpty = procStatus(empty.proc.pid!, 'VmRSS');
  const t0 = Date.now();
  const cpu0 = serve.cpuSeconds();
  const bcpu0 = brokerCpu();
  const wcpu0 = fleet.map((w) => procCpu(w.proc.pid!));
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  const t1 = Date.now();
  const serveCpu = serve.cpuSeconds() - cpu0;
  const bcpu = brokerCpu() - bcpu0;
  const wcpu = fleet.map((w, i) => procCpu(w.proc.pid!) - wcpu0[i]!);
  const rss = fleet.map((w) => procStatus(w.proc.pid!, 'VmRSS'));
  const perMeterKiB = rss.map((r, i) => ((r - rssEmpty) * 1024) / Math.min(per, METERS - i * per));
  console.log(
    `  RSS per worker ${rss.map(mib).join(', ')} (a 0-meter worker: ${mib(rssEmpty)}); per meter ` +
      `${perMeterKiB.map((k) => `${k.toFixed(1)} KiB`).join(', ')}; serve RSS ${mib(serve.rssMiB())}`,
  );
  console.log(
    `  window ${((t1 - t0) / 1000).toFixed(1)} s: serve (broker + twins + ingest) CPU ${serveCpu.toFixed(1)} s ` +
      `(${((100 * serveCpu) / ((t1 - t0) / 1000)).toFixed(0)}% of a core); workers ` +
      `${wcpu.map((c) => `${((100 * c) / ((t1 - t0) / 1000)).toFixed(0)}%`).join(', ')} of a core each` +
      (cluster
        ? `; Mosquittos (core + ${EDGES} edges) ${bcpu.toFixed(1)} s (${((100 * bcpu) / ((t1 - t0) / 1000)).toFixed(0)}% of a core)`
        : ''),
  );

  // Every sample due up to the window's end is published and stored a little after it: wait one
  // period more, so a boundary just before t1 is not counted as lost.
  await new Promise((r) => setTimeout(r, PERIOD_MS + 3_000));
  // A clean stop: each worker drains, says goodbye and sends its last snapshots; serve flushes.
  const tStop = performance.now();
  for (const w of workers) w.proc.kill('SIGTERM');
  const codes = await Promise.all(workers.map((w) => w.exited));
  const stopMs = performance.now() - tStop;
  const ledger = await serve.sim<{ meters: number; disagreements: unknown[] }>('GET', '/ledger');
  const exit = await serve.stop('SIGTERM');
  if (exit !== 0) {
    const out = serve.output();
    const at = out.search(/\w*Error\b/);
    console.log(`  serve's output around its error:\n${out.slice(Math.max(0, at - 1500), at + 1200)}`);
  }

  const one = async (sql: string, params: unknown[] = []) =>
    Object.values((await store.query<Record<string, number>>(sql, params))[0] ?? {})[0] ?? 0;
  // Due: one sample per meter per period boundary inside the window; a gap anywhere is a lost reading.
  const inWindow = await one('SELECT count(*) AS n FROM samples WHERE ts >= ? AND ts < ?', [
    Math.ceil(t0 / PERIOD_MS) * PERIOD_MS,
    Math.ceil(t1 / PERIOD_MS) * PERIOD_MS,
  ]);
  const due = METERS * (Math.ceil(t1 / PERIOD_MS) - Math.ceil(t0 / PERIOD_MS));
  const gaps = await one(
    `SELECT coalesce(sum((ts - prev - 1) / ${PERIOD_MS}), 0) AS n FROM (
       SELECT ts, lag(ts) OVER (PARTITION BY device_pk ORDER BY ts) AS prev FROM samples) AS t
     WHERE prev IS NOT NULL AND ts - prev > ${PERIOD_MS}`,
  );
  const first = Math.ceil(t0 / PERIOD_MS) * PERIOD_MS;
  const last = Math.ceil(t1 / PERIOD_MS) * PERIOD_MS - PERIOD_MS;
  const [edges] = await store.query<{ late_end: number; late_start: number; oldest_end: number }>(
    `SELECT sum(CASE WHEN hi < ? THEN 1 ELSE 0 END) AS late_end, sum(CASE WHEN lo > ? THEN 1 ELSE 0 END) AS late_start,
       min(hi) AS oldest_end FROM (SELECT device_pk, max(ts) AS hi, min(ts) AS lo FROM samples GROUP BY device_pk) AS t`,
    [last, first],
  );
  if (edges && edges.late_end + edges.late_start > 0)
    console.log(
      `  edges: ${edges.late_end} meters end before the window's last boundary (oldest end ${edges.oldest_end - last} ms from it), ` +
        `${edges.late_start} start after its first`,
    );
  const total = await one('SELECT count(*) AS n FROM samples');
  const meters = await one('SELECT count(DISTINCT device_pk) AS n FROM samples');
  console.log(
    `  stopped ${workers.length} workers (exit codes ${codes.join(',')}) in ${secs(stopMs)}, serve exit ${exit}; ` +
      `ledger check: ${ledger.meters} meters, ${ledger.disagreements.length} disagreements`,
  );
  console.log(
    `  readings: in the window stored ${inWindow.toLocaleString('en')} of ${due.toLocaleString('en')} due; ` +
      `all runs: ${total.toLocaleString('en')} stored from ${meters.toLocaleString('en')} meters, ${gaps} lost (gaps)`,
  );
  const met = inWindow >= due && gaps === 0 && meters === METERS;
  if (!met) {
    // What the service said about meters it did not store: refusals, unknown devices, failed batches.
    const said = serve
      .output()
      .split('\n')
      .filter((l) => /twins:|refus|unknown device|store:/.test(l));
    console.log(`  serve said ${said.length} such lines (twins:, refused, unknown device, store:), e.g.:`);
    for (const l of said.slice(0, 8)) console.log(`    ${l.slice(0, 300)}`);
    const silent = await store.query<{ device_id: string }>(
      'SELECT device_id FROM devices WHERE pk NOT IN (SELECT DISTINCT device_pk FROM samples) LIMIT 20',
    );
    console.log(`  devices with no reading: ${silent.map((d) => d.device_id).join(' ') || 'none'}`);
  }
  console.log(`  ${met ? 'zero lost readings' : 'READINGS LOST OR MISSING'}`);
  process.exitCode = met ? 0 : 1;
} finally {
  for (const w of workers) w.proc.kill('SIGKILL');
  await serve.stop('SIGKILL');
  for (const b of brokers) await b.stop();
  await store.drop();
  rmSync(dir, { recursive: true, force: true });
}
