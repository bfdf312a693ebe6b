// Issue 21's evidence: one bridge process holding ≥ 100 DLMS meters over TCP at a 15-minute profile
// period with ≤ 5 % of a core. One `serve` child (embedded broker, SQLite), N devices provisioned through
// /sim/v1, N DLMS virtual meters (simulator/dlms-meter.ts, each on its own wrapper TCP port) in this
// process, ONE `meterstack bridge --dlms --meters` child for all of them. Once every meter is online the
// bridge child's CPU (/proc utime + stime) is measured over a window; then the peer, the same meters read
// by a bare loop of our DLMS client without MQTT (support/dlms-peer.ts, its own process), the same way.
//
// Run: npm run build && npx tsx bench/dlms-bridge.ts [--meters 100] [--window 120] [--poll-s 60]

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { BLOCK_PERIOD_S } from '../firmware-protocol/dlms/cosem/objects-profiles.ts';
import { DlmsMeter } from '../simulator/dlms-meter.ts';
import { WrapperMeterServer } from '../simulator/dlms-tcp.ts';
import { createMeter } from '../simulator/meter/index.ts';
import { connectMqtt } from '../src/mqtt/connect.ts';
import { cpuSecondsOf } from './support/proc.ts';
import { pool, startServe } from './support/serve-process.ts';

const { values: flags } = parseArgs({
  options: {
    meters: { type: 'string', default: '100' },
    window: { type: 'string', default: '120' },
    'poll-s': { type: 'string', default: '60' },
    'warmup-s': { type: 'string', default: '180' },
  },
});
const N = Number(flags.meters);
const WINDOW_S = Number(flags.window);
const POLL_S = Number(flags['poll-s']);
const WARMUP_S = Number(flags['warmup-s']);
const PASSWORD = 'BENCHLLS';
const TARGET = 5; // % of one core
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const quiet = (level: string, msg: string) => {
  if (level === 'error') console.log(`  meter: ${msg}`);
};

const procCpu = cpuSecondsOf;
function rssMiB(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Child {
  proc: ChildProcess;
  out: string;
  /** Warning and error lines since the last reset. */
  problems: string[];
}
function child(command: string, env: NodeJS.ProcessEnv = process.env): Child {
  const proc = spawn('bash', ['-c', `ulimit -n $(ulimit -Hn); exec ${command}`], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  process.once('exit', () => proc.kill('SIGKILL'));
  const c: Child = { proc, out: '', problems: [] };
  const read = (d: string) => {
    c.out = (c.out + d).slice(-200_000);
    for (const line of d.split('\n'))
      if (/\b(warn|error|WARN|ERROR)\b|"level":(40|50)/.test(line)) c.problems.push(line.slice(0, 300));
  };
  proc.stdout!.setEncoding('utf8').on('data', read);
  proc.stderr!.setEncoding('utf8').on('data', read);
  return c;
}
async function stop(c: Child): Promise<void> {
  if (c.proc.exitCode !== null) return;
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.kill('SIGTERM');
  await Promise.race([exited, sleep(5_000)]);
  c.proc.kill('SIGKILL');
}

/** CPU of `pid` over the window, % of one core, and the wall time it covered. */
async function measure(pid: number): Promise<{ pct: number; cpuS: number; wallS: number }> {
  const c0 = procCpu(pid);
  const t0 = performance.now();
  await sleep(WINDOW_S * 1000);
  const cpuS = procCpu(pid) - c0;
  const wallS = (performance.now() - t0) / 1000;
  return { pct: (100 * cpuS) / wallS, cpuS, wallS };
}

const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-dlms-'));
const db = join(dir, 'bench.db');
const serve = await startServe([
  '--http-port=0',
  '--mqtt-port=0',
  `--db=${db}`,
  '--no-demo',
  '--rate-limit=0',
  '--log-level=warn',
]);
const servers: WrapperMeterServer[] = [];
const meters: DlmsMeter[] = [];
let bridge: Child | null = null;
let peer: Child | null = null;
try {
  console.log(
    `dlms-bridge: ${N} DLMS meters over TCP (wrapper) -> ONE bridge child -> serve (pid ${serve.pid}); ` +
      `poll every ${POLL_S} s, block load profile every ${BLOCK_PERIOD_S / 60} min, window ${WINDOW_S} s; ` +
      `${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`,
  );
  const { account_id } = await serve.sim<{ account_id: number }>('POST', '/accounts', { name: 'dlms' });
  const devices = await pool(
    Array.from({ length: N }, (_, i) => `DLMS-${String(i).padStart(5, '0')}`),
    16,
    (device_id) =>
      serve.sim<{ device_id: string; mqtt: { password: string } }>('POST', '/devices', {
        account_id,
        external: true,
        model: 'full',
        device_id,
      }),
  );
  const entries: { device: string; tcp: string; mqttPassword: string }[] = [];
  for (const [i, d] of devices.entries()) {
    const meter = new DlmsMeter({
      state: createMeter(
        {
          deviceId: d.device_id,
          model: 'full',
          mode: 'prepaid',
          balance: 10_000_000,
          load: { kind: 'household', seed: i + 1, peakWatts: 2000 },
        },
        Date.now(),
      ),
      now: Date.now,
      log: quiet,
      server: { readerPassword: PASSWORD },
    });
    meter.start();
    const server = new WrapperMeterServer({ meter, port: 0, host: '127.0.0.1', log: quiet });
    entries.push({
      device: d.device_id,
      tcp: `127.0.0.1:${await server.listen()}`,
      mqttPassword: d.mqtt.password,
    });
    meters.push(meter);
    servers.push(server);
  }
  const metersFile = join(dir, 'meters.json');
  writeFileSync(metersFile, JSON.stringify(entries, null, 1));

  // The admin's view of the broker: which meters are online [MC-6.1].
  const watcher = await connectMqtt({
    url: serve.mqttUrl,
    clientId: 'dlms-bench-watcher',
    username: 'admin',
    password: serve.adminToken,
  });
  const online = new Set<string>();
  watcher.on('message', (topic, payload) => {
    const id = topic.split('/')[2]!;
    if ((JSON.parse(payload.toString()) as { online: boolean }).online) online.add(id);
    else online.delete(id);
  });
  await watcher.subscribeAsync('meterstack/v1/+/availability', { qos: 1 });

  // --- the bridge ---
  const t0 = performance.now();
  bridge = child(
    `node bin/meterstack.js bridge --dlms --meters ${metersFile} --broker ${serve.mqttUrl} ` +
      `--password ${PASSWORD} --poll-s ${POLL_S} --state-dir ${dir} --log-level warn`,
  );
  const pid = bridge.proc.pid!;
  const deadline = Date.now() + WARMUP_S * 1000;
  while (online.size < N && Date.now() < deadline && bridge.proc.exitCode === null) await sleep(100);
  const warmS = (performance.now() - t0) / 1000;
  console.log(
    `  bridge (pid ${pid}): ${online.size}/${N} online after ${warmS.toFixed(1)} s; its CPU so far ${procCpu(pid).toFixed(2)} s; RSS ${rssMiB(pid).toFixed(0)} MiB`,
  );
  if (online.size < N)
    console.log(`  WARNING: not every meter online; last output:\n${bridge.out.slice(-3000)}`);
  await sleep(5_000); // the first polls and the first profile reads settle
  const store = new Database(db, { readonly: true });
  const count = store.prepare('SELECT count(*) FROM samples').pluck();
  const samples0 = count.get() as number;
  bridge.problems = [];
  const blockClosed = (from: number, to: number) =>
    Math.floor(to / (BLOCK_PERIOD_S * 1000)) > Math.floor(from / (BLOCK_PERIOD_S * 1000));
  const w0 = Date.now();
  const b = await measure(pid);
  const onlineAtEnd = online.size;
  const samples = (count.get() as number) - samples0;
  const due = Math.floor((N * b.wallS) / POLL_S);
  const bridgeProblems = bridge.problems.length;
  console.log(
    `  bridge: ${b.pct.toFixed(2)} % of a core (${b.cpuS.toFixed(2)} CPU s over ${b.wallS.toFixed(1)} s), ` +
      `${onlineAtEnd}/${N} online at the end, ${samples} samples stored (~${due} polls due), ` +
      `${bridgeProblems} warning/error lines, RSS ${rssMiB(pid).toFixed(0)} MiB` +
      `${blockClosed(w0, Date.now()) ? '; a 15-min block closed in the window (profile reads included)' : '; no block closed in the window'}`,
  );
  for (const line of bridge.problems.slice(0, 5)) console.log(`    ${line}`);
  store.close();
  await stop(bridge);
  bridge = null;
  await watcher.endAsync();

  // --- the peer: the same GETs by a bare client loop, no MQTT ---
  peer = child(`node --import tsx bench/support/dlms-peer.ts ${metersFile} ${PASSWORD} ${POLL_S}`);
  const p0 = performance.now();
  const peerDeadline = Date.now() + WARMUP_S * 1000;
  while (!/peer: \d+ associated/.test(peer.out) && Date.now() < peerDeadline && peer.proc.exitCode === null)
    await sleep(100);
  console.log(
    `  peer (pid ${peer.proc.pid}): ${/peer: (\d+) associated/.exec(peer.out)?.[1] ?? 0}/${N} associated after ${((performance.now() - p0) / 1000).toFixed(1)} s`,
  );
  await sleep(5_000);
  const pollsBefore = lastPolls(peer.out);
  const p = await measure(peer.proc.pid!);
  await sleep(1_100); // the next counter line
  console.log(
    `  peer:   ${p.pct.toFixed(2)} % of a core (${p.cpuS.toFixed(2)} CPU s over ${p.wallS.toFixed(1)} s), ` +
      `~${lastPolls(peer.out).polls - pollsBefore.polls} polls, errors ${lastPolls(peer.out).errors}, RSS ${rssMiB(peer.proc.pid!).toFixed(0)} MiB`,
  );
  const verdict = b.pct <= TARGET && onlineAtEnd === N ? 'PASS' : 'FAIL';
  console.log(
    `verdict: one bridge process holding ${N} DLMS meters over TCP at ${b.pct.toFixed(2)} % of a core ` +
      `(target ≤ ${TARGET} %; the bare client loop ${p.pct.toFixed(2)} %, ×${(b.pct / Math.max(p.pct, 0.01)).toFixed(1)}): ${verdict}`,
  );
} finally {
  if (bridge) await stop(bridge);
  if (peer) await stop(peer);
  for (const m of meters) m.stop();
  await Promise.all(servers.map((s) => s.close()));
  await serve.stop();
  rmSync(dir, { recursive: true, force: true });
}

function lastPolls(out: string): { polls: number; errors: number } {
  const all = [...out.matchAll(/peer: polls (\d+) errors (\d+)/g)];
  const last = all.at(-1);
  return { polls: Number(last?.[1] ?? 0), errors: Number(last?.[2] ?? 0) };
}
