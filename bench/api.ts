// HTTP API benchmark: the "Speed" targets of issue 3, measured in one run against `meterstack serve`
// started as a child process, with a bare fastify app (also a child process) as the baseline.
//
// Run: npx tsx bench/api.ts [--duration 5] [--rounds 3] [--backfill-period 60] [--cpu-prof DIR]
//                           [--only get,relay,history] [--check] [--strict]
//
//   --duration S         seconds of each autocannon run (default 5; each target also gets a 1 s warm-up)
//   --rounds N           GET device/space and their baselines are measured N times, interleaved, and the
//                        median is reported (default 3)
//   --backfill-period S  sample period of the history meter's year of backfill: 60 (default, 527,040
//                        minute samples, as the store's target assumes) or 900
//   --cpu-prof DIR       run the meterstack child under `node --cpu-prof`; the .cpuprofile lands in DIR
//   --only LIST          run only some groups: get, relay, history
//   --check              the quick run CI makes (.ci/run, under a minute; issue 19 names it): only the two
//                        GET ratios, 3 s runs, each against a floor of CHECK_RATIO_FLOOR, printed plainly;
//                        exit 1 below it. `--ci` is the same run (its older name)
//   --strict             exit 1 when a target of the full run is missed
//   --cpu-prof-baseline  with --cpu-prof: the bare fastify child is profiled too, into the same DIR
//   --serve-arg ARG      one more argument for `meterstack serve` (repeatable): an A/B of a flag in one
//                        script, e.g. --serve-arg=--no-events
//
// What is measured (setup: one account, one space, a live `full` postpaid meter at 500 W with telemetry
// every 10 s, and a `full` meter with 366 days of backfill):
// - GET /api/v2/devices/{id}/ and GET /api/v2/spaces/{id}/: requests/s on 10 connections (autocannon),
//   each against a bare fastify route (separate child) returning the very same JSON body, same path
//   shape, same request headers; measured once the live meter has published (steady state). Target
//   (issue 19): ratio >= 0.9.
// - PUT /api/v2/devices/{id}/relay end to end (HTTP -> service -> MQTT -> virtual meter -> reply ->
//   HTTP), body {"state": true|false} alternating: p50/p99 of sequential requests on one keep-alive
//   connection (each timed with hrtime), and requests/s on 10 connections (autocannon). Targets (issue
//   19): <= 120 µs of server CPU per request, and >= 0.3× bare fastify's GET device requests/s (when the
//   get group ran too).
// - GET .../metrics/history on the backfilled meter: a day at 15m (p99), a year at 1d (p50), a year at
//   15m = 35,040 values (p50), sequential on one keep-alive connection; the day-at-15m body is also
//   fetched from the bare route the same way, as the machine's p99 floor (not a target).
//
// The load generator (this process) and the server share the machine: on a 2-core box they compete for
// CPU, so absolute figures are lower than on a server with spare cores. The ratio targets compare like
// with like (both servers are child processes driven by the same generator). Notes give "cpu srv / gen /
// other": CPU time over wall time (100% = one core) of the server child, of this process, and of every
// other process on the machine. A server near 100% is the bottleneck; "other" well above 0 means the
// machine was shared and the figures are depressed (a warning is printed). "µs CPU/req" is server CPU
// time per request, the figure least sensitive to outside load.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { CLK_TCK, cpuSecondsOf } from './support/proc.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/meterstack.js', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const ADMIN_TOKEN = 'bench-admin-token';
const CONNECTIONS = 10;
const DAY_MS = 86_400_000;
const IST_OFFSET_MS = 19_800_000;
/** Issue 19: GET device and GET space at least this share of bare fastify's requests/s. */
const GET_RATIO_TARGET = 0.9;
/** Issue 19: PUT relay's server CPU per request at 10 connections, and its rate against bare GET device. */
const RELAY_CPU_TARGET_US = 120;
const RELAY_VS_BARE_GET_TARGET = 0.3;
/** --check: the GET ratios' floor, generous (the target is 0.9, issue 19) so that only a regression fails. */
const CHECK_RATIO_FLOOR = 0.6;

// ---------------------------------------------------------------------------------------------------
// Baseline child: `tsx bench/api.ts --baseline-server` with the bodies to serve in BENCH_BODIES.

async function runBaselineServer(): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const bodies = JSON.parse(process.env['BENCH_BODIES'] ?? '{}') as Record<
    'device' | 'space' | 'history',
    object
  >;
  const app = Fastify({ logger: false });
  // The same path shapes as the v2 routes and the same bodies; only the timestamp is made per request,
  // as the service does. No hooks, no schema, default serializer: "a bare fastify route".
  const route = (path: string, body: object) =>
    app.get(path, async () => ({ ...body, timestamp: new Date().toISOString() }));
  route('/api/v2/devices/:device_id/', bodies.device);
  route('/api/v2/spaces/:space_id/', bodies.space);
  route('/api/v2/devices/:device_id/metrics/history', bodies.history);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`BASELINE ${url}\n`);
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

// ---------------------------------------------------------------------------------------------------
// Child processes

class Child {
  readonly proc: ChildProcess;
  out = '';
  err = '';
  readonly exited: Promise<void>;

  constructor(args: string[], env: Record<string, string> = {}) {
    this.proc = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Always drained, so a chatty child never blocks on a full pipe; only the tail is kept.
    this.proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.out = (this.out + d).slice(-20_000);
    });
    this.proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.err = (this.err + d).slice(-20_000);
    });
    this.exited = new Promise((resolve) => this.proc.once('exit', () => resolve()));
  }

  get pid(): number {
    return this.proc.pid!;
  }

  async waitFor(re: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = re.exec(this.out);
      if (m) return m;
      if (this.proc.exitCode !== null || Date.now() > deadline) {
        throw new Error(`child did not start\nstdout: ${this.out}\nstderr: ${this.err}`);
      }
      await sleep(20);
    }
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGTERM');
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/** CPU time (ms, user + system, all threads) of a process, from /proc; NaN where there is no /proc. */
function procCpuMs(pid: number): number {
  try {
    return cpuSecondsOf(pid) * 1000;
  } catch {
    return Number.NaN;
  }
}

/** Busy CPU time (ms) of the whole machine, all cores, from /proc/stat; NaN where there is none. */
function machineBusyMs(): number {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
    const busy = cpu.slice(0, 8).reduce((sum, x, i) => (i === 3 || i === 4 ? sum : sum + x), 0);
    return (busy * 1000) / CLK_TCK;
  } catch {
    return Number.NaN;
  }
}

/** CPU share of other processes during each measurement. */
const outsideLoad: number[] = [];

interface Cpu {
  /** CPU time of the server process over wall time (1 = one core busy). */
  srvCpu: number;
  /** The same for this process, the load generator. */
  genCpu: number;
  /** Everything else on the machine (other processes): noise when well above 0. */
  otherCpu: number;
}

/** Runs `fn`; adds the CPU shares of server, generator and everything else over its wall time. */
async function withCpu<T>(pid: number, fn: () => Promise<T>): Promise<T & Cpu> {
  const srv0 = procCpuMs(pid);
  const all0 = machineBusyMs();
  const gen0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await fn();
  const wall = performance.now() - t0;
  const gen = process.cpuUsage(gen0);
  const srvCpu = (procCpuMs(pid) - srv0) / wall;
  const genCpu = (gen.user + gen.system) / 1000 / wall;
  const otherCpu = Math.max(0, (machineBusyMs() - all0) / wall - srvCpu - genCpu);
  outsideLoad.push(otherCpu);
  return { ...result, srvCpu, genCpu, otherCpu };
}

// ---------------------------------------------------------------------------------------------------
// HTTP helpers

interface Reply {
  status: number;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One request on the shared keep-alive connection. */
function request(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function call<T>(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<T> {
  const h = body === undefined ? headers : { ...headers, 'content-type': 'application/json' };
  const res = await request(
    `${base}${path}`,
    method,
    h,
    body === undefined ? undefined : JSON.stringify(body),
  );
  const parsed = JSON.parse(res.body) as { success: boolean; data: T };
  if (res.status >= 300 || !parsed.success) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  return parsed.data;
}

interface Latencies {
  n: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
  /** Response size of the last request, bytes. */
  bytes: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** `n` sequential requests on one keep-alive connection, each timed from write to last byte. */
async function sequential(
  n: number,
  warmup: number,
  next: (i: number) => { url: string; method: string; headers: Record<string, string>; body?: string },
): Promise<Latencies> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < warmup + n; i++) {
    const r = next(i);
    const t0 = process.hrtime.bigint();
    const res = await request(r.url, r.method, r.headers, r.body);
    const dt = Number(process.hrtime.bigint() - t0) / 1e6;
    if (res.status !== 200) throw new Error(`${r.method} ${r.url}: ${res.status} ${res.body.slice(0, 500)}`);
    bytes = Buffer.byteLength(res.body);
    if (i >= warmup) ms.push(dt);
  }
  ms.sort((a, b) => a - b);
  return {
    n,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    mean: ms.reduce((s, x) => s + x, 0) / ms.length,
    max: ms[ms.length - 1]!,
    bytes,
  };
}

interface Throughput {
  rps: number;
  p50: number;
  p99: number;
  total: number;
  bad: number;
}

async function cannon(opts: autocannon.Options): Promise<Throughput> {
  const r = await autocannon({ connections: CONNECTIONS, ...opts });
  return {
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    bad: r.non2xx + r.errors + r.timeouts,
  };
}

// ---------------------------------------------------------------------------------------------------
// Report

interface Row {
  measurement: string;
  figure: string;
  target: string;
  pass: boolean | null;
  note: string;
}

const rows: Row[] = [];
/** --check: one plain line per GET ratio. */
const checkLines: string[] = [];

function row(measurement: string, figure: string, target = '', pass: boolean | null = null, note = ''): void {
  rows.push({ measurement, figure, target, pass, note });
}

const pct = (x: number) => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : '-');
const fmtMs = (x: number) => `${x < 10 ? x.toFixed(2) : x.toFixed(1)} ms`;
/** autocannon's latency histogram has 1 ms resolution. */
const fmtAcMs = (x: number) => (x < 1 ? '< 1 ms' : `${Math.round(x)} ms`);
const fmtRps = (x: number) => `${Math.round(x).toLocaleString('en-US')} req/s`;
const cpuNote = (x: Cpu) => `cpu srv ${pct(x.srvCpu)} gen ${pct(x.genCpu)} other ${pct(x.otherCpu)}`;

function printTable(): void {
  const header: Row = {
    measurement: 'measurement',
    figure: 'figure',
    target: 'target',
    pass: null,
    note: 'note',
  };
  const cells = (r: Row) => [
    r.measurement,
    r.figure,
    r.target,
    r === header ? 'result' : r.pass === null ? '' : r.pass ? 'PASS' : 'FAIL',
    r.note,
  ];
  const all = [header, ...rows].map(cells);
  const widths = all[0]!.map((_, i) => Math.max(...all.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(line(all[0]!));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const c of all.slice(1)) console.log(line(c));
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const istDate = (ms: number) => new Date(ms + IST_OFFSET_MS).toISOString().slice(0, 10);

// ---------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      'backfill-period': { type: 'string', default: '60' },
      'cpu-prof': { type: 'string' },
      'cpu-prof-baseline': { type: 'boolean', default: false },
      only: { type: 'string', default: 'get,relay,history' },
      check: { type: 'boolean', default: false },
      ci: { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      'serve-arg': { type: 'string', multiple: true, default: [] },
    },
  });
  const check = values.check || values.ci;
  // Under --check: 3 s runs unless asked otherwise, the GET group alone.
  const duration = Number(check && !process.argv.includes('--duration') ? '3' : values.duration);
  const rounds = Number(values.rounds);
  const backfillPeriodS = Number(values['backfill-period']);
  const only = new Set(check ? ['get'] : values.only.split(','));
  const ratioFloor = check ? CHECK_RATIO_FLOOR : GET_RATIO_TARGET;
  const cpuProfDir = values['cpu-prof'];

  const cpus = os.cpus();
  console.log('meterstack HTTP API benchmark (issue 3, "Speed")');
  console.log(
    `machine: ${cpus.length} CPU(s), ${cpus[0]?.model ?? 'unknown'}; ${os.platform()} ${os.release()}; ` +
      `node ${process.version}`,
  );
  console.log(
    `load average before the run: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  if (cpus.length <= 2) {
    console.log(
      `note: ${cpus.length} core(s): the load generator (this process) and the server child compete for CPU, ` +
        'so absolute figures are pessimistic; see the srv/gen cpu notes.',
    );
  }

  const tmp = mkdtempSync(join(os.tmpdir(), 'meterstack-bench-'));
  const profArgs = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [];
  const serve = new Child([
    ...profArgs,
    BIN,
    'serve',
    '--http-port',
    '0',
    '--mqtt-port',
    '0',
    '--db',
    join(tmp, 'meterstack.db'),
    '--no-demo',
    '--rate-limit',
    '0',
    '--admin-token',
    ADMIN_TOKEN,
    ...values['serve-arg'],
  ]);
  let baseline: Child | null = null;
  try {
    const base = (await serve.waitFor(/HTTP API\s+(http:\/\/\S+)/))[1]!;
    const admin = { 'x-admin-token': ADMIN_TOKEN };

    // Provision: one account, one space, a live meter for GET/relay, and a meter with a year of history.
    const acct = await call<{ account_id: number; api_key: string }>(
      base,
      'POST',
      '/sim/v1/accounts',
      admin,
      {
        name: 'bench',
      },
    );
    const auth = { 'x-service-api-key': acct.api_key };
    const space = await call<{ space_id: number }>(base, 'POST', '/sim/v1/spaces', admin, {
      account_id: acct.account_id,
      name: 'bench space',
    });
    const live = await call<{ device_id: string }>(base, 'POST', '/sim/v1/devices', admin, {
      account_id: acct.account_id,
      space_id: space.space_id,
      model: 'full',
      mode: 'postpaid',
      load_watts: 500,
      // Telemetry every 10 s (default 60 s), so the steady state below is reached quickly.
      telemetry_period_s: 10,
    });
    let histId: string | null = null;
    let backfillS = 0;
    if (only.has('history')) {
      const t0 = performance.now();
      const hist = await call<{ device_id: string }>(base, 'POST', '/sim/v1/devices', admin, {
        account_id: acct.account_id,
        space_id: space.space_id,
        model: 'full',
        mode: 'postpaid',
        load_watts: 500,
        backfill_days: 366,
        backfill_period_s: backfillPeriodS,
      });
      backfillS = (performance.now() - t0) / 1000;
      histId = hist.device_id;
    }
    console.log(
      `service ${base} (child pid ${serve.pid}); space ${space.space_id} with ${histId ? 2 : 1} device(s)` +
        (histId
          ? `; history meter ${histId}: 366 days at ${backfillPeriodS} s ` +
            `(${Math.round((366 * 86_400) / backfillPeriodS).toLocaleString('en-US')} samples) provisioned in ` +
            `${backfillS.toFixed(1)} s`
          : ''),
    );
    console.log(`autocannon runs: ${CONNECTIONS} connections, ${duration} s each after a 1 s warm-up\n`);

    const devicePath = `/api/v2/devices/${live.device_id}/`;
    // Steady state: GET device reads the newest reading from the twin once the meter has published one;
    // before that (a fresh device) it falls back to the store on every request.
    const t0 = performance.now();
    for (;;) {
      const got = await call<{ readings: unknown[] }>(base, 'GET', devicePath, auth);
      if (got.readings.length > 0) break;
      if (performance.now() - t0 > 30_000) throw new Error('the live meter published no telemetry in 30 s');
      await sleep(250);
    }
    const spacePath = `/api/v2/spaces/${space.space_id}/`;

    // ---- the baseline: a bare fastify child serving the service's own bodies ----
    const { now_ms: now } = await call<{ now_ms: number }>(base, 'GET', '/sim/v1/clock', admin);
    const yesterday = istDate(now - DAY_MS);
    const yearFrom = istDate(now - 365 * DAY_MS);
    const historyPath = (from: string, to: string, interval: string) =>
      `/api/v2/devices/${histId}/metrics/history?property_id=energy&from_date=${from}&to_date=${to}&interval=${interval}`;
    const bodyOf = async (path: string) => {
      const res = await request(`${base}${path}`, 'GET', auth);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.body}`);
      return JSON.parse(res.body) as object;
    };
    baseline = new Child(
      [...(values['cpu-prof-baseline'] ? profArgs : []), '--import', 'tsx', SELF, '--baseline-server'],
      {
        BENCH_BODIES: JSON.stringify({
          device: await bodyOf(devicePath),
          space: await bodyOf(spacePath),
          history: histId ? await bodyOf(historyPath(yesterday, yesterday, '15m')) : {},
        }),
      },
    );
    const bare = (await baseline.waitFor(/BASELINE (http:\/\/\S+)/))[1]!;
    const bytesOf = async (url: string) => Buffer.byteLength((await request(url, 'GET', auth)).body);

    /** Bare fastify's GET device requests/s, for PUT relay's ratio (null when the get group did not run). */
    let bareGetRps: number | null = null;
    // ---- GET device / GET space against a bare fastify route ----
    if (only.has('get')) {
      const bpid = baseline.pid;
      type Run = Throughput & Cpu;
      const targets = [
        { name: 'GET device', path: devicePath },
        { name: 'GET space', path: spacePath },
      ].map((t) => ({ ...t, svc: [] as Run[], bare: [] as Run[], bytes: 0, bareBytes: 0 }));
      for (const t of targets) {
        t.bytes = await bytesOf(`${base}${t.path}`);
        t.bareBytes = await bytesOf(`${bare}${t.path}`);
      }
      const run = (url: string, pid: number, d: number) =>
        withCpu(pid, () => cannon({ url, headers: auth, duration: d }));
      for (const t of targets) {
        await run(`${base}${t.path}`, serve.pid, 1);
        await run(`${bare}${t.path}`, bpid, 1);
      }
      // Interleaved, so a burst of outside load hits both sides of a ratio alike.
      for (let r = 0; r < rounds; r++) {
        for (const t of targets) {
          const b = await run(`${bare}${t.path}`, bpid, duration);
          const s = await run(`${base}${t.path}`, serve.pid, duration);
          if (b.bad > 0 || s.bad > 0)
            throw new Error(`${t.name}: ${s.bad} bad responses (baseline ${b.bad})`);
          t.bare.push(b);
          t.svc.push(s);
          console.log(
            `  round ${r + 1} ${t.name.padEnd(10)}: meterstack ${fmtRps(s.rps)} (${cpuNote(s)}); ` +
              `bare fastify ${fmtRps(b.rps)} (${cpuNote(b)})`,
          );
        }
      }
      const med = (runs: Run[], k: keyof Run) => median(runs.map((x) => x[k]));
      // Server CPU time per request: less sensitive to outside load than requests/s.
      const cpuPerReq = (runs: Run[]) =>
        `srv ${Math.round(median(runs.map((x) => (x.srvCpu / x.rps) * 1e6)))} µs CPU/req`;
      const medCpu = (runs: Run[]): Cpu => ({
        srvCpu: med(runs, 'srvCpu'),
        genCpu: med(runs, 'genCpu'),
        otherCpu: med(runs, 'otherCpu'),
      });
      for (const t of targets) {
        const svc = med(t.svc, 'rps');
        const bareRps = med(t.bare, 'rps');
        if (t.name === 'GET device') bareGetRps = bareRps;
        const ratio = svc / bareRps;
        row(
          `${t.name} req/s, ${CONNECTIONS} conn`,
          fmtRps(svc),
          '',
          null,
          `${t.bytes} B; median of ${rounds}; p99 ${fmtAcMs(med(t.svc, 'p99'))}; ${cpuNote(medCpu(t.svc))}; ` +
            `${cpuPerReq(t.svc)}`,
        );
        row(
          `  bare fastify, same body`,
          fmtRps(bareRps),
          '',
          null,
          `${t.bareBytes} B; median of ${rounds}; p99 ${fmtAcMs(med(t.bare, 'p99'))}; ${cpuNote(medCpu(t.bare))}; ` +
            `${cpuPerReq(t.bare)}`,
        );
        row(
          `  ${t.name} / bare fastify`,
          ratio.toFixed(2),
          `>= ${ratioFloor.toFixed(2)}`,
          ratio >= ratioFloor,
        );
        checkLines.push(
          `${t.name} / bare fastify: ${ratio.toFixed(2)} (floor ${ratioFloor.toFixed(2)}) ${ratio >= ratioFloor ? 'PASS' : 'FAIL'}`,
        );
      }
    }

    // ---- PUT relay end to end ----
    if (only.has('relay')) {
      const relayUrl = `${base}/api/v2/devices/${live.device_id}/relay`;
      const headers = { ...auth, 'content-type': 'application/json' };
      const bodies = [JSON.stringify({ state: true }), JSON.stringify({ state: false })];
      const seq = await withCpu(serve.pid, () =>
        sequential(3000, 300, (i) => ({ url: relayUrl, method: 'PUT', headers, body: bodies[i % 2] })),
      );
      row('PUT relay p50, 1 conn (sequential)', fmtMs(seq.p50), '<= 1.5 ms', seq.p50 <= 1.5, `n ${seq.n}`);
      row(
        'PUT relay p99, 1 conn (sequential)',
        fmtMs(seq.p99),
        '<= 10 ms',
        seq.p99 <= 10,
        `mean ${fmtMs(seq.mean)}, max ${fmtMs(seq.max)}; ${cpuNote(seq)}`,
      );
      const requests = bodies.map((body) => ({ method: 'PUT' as const, body }));
      await cannon({ url: relayUrl, headers, requests, duration: 1 });
      const tp = await withCpu(serve.pid, () => cannon({ url: relayUrl, headers, requests, duration }));
      if (tp.bad > 0) throw new Error(`PUT relay: ${tp.bad} bad responses of ${tp.total}`);
      row(
        `PUT relay req/s, ${CONNECTIONS} conn`,
        fmtRps(tp.rps),
        '>= 5,000 req/s',
        tp.rps >= 5000,
        `${tp.total} requests; p50 ${fmtAcMs(tp.p50)}, p99 ${fmtAcMs(tp.p99)}; ${cpuNote(tp)}`,
      );
      const relayCpu = (tp.srvCpu / tp.rps) * 1e6;
      row(
        '  PUT relay server CPU/req',
        `${Math.round(relayCpu)} µs`,
        `<= ${RELAY_CPU_TARGET_US} µs`,
        relayCpu <= RELAY_CPU_TARGET_US,
      );
      if (bareGetRps !== null) {
        const vs = tp.rps / bareGetRps;
        row(
          '  PUT relay / bare GET device',
          vs.toFixed(2),
          `>= ${RELAY_VS_BARE_GET_TARGET.toFixed(2)}`,
          vs >= RELAY_VS_BARE_GET_TARGET,
        );
      }
    }

    // ---- history ----
    if (histId) {
      const hist = (from: string, to: string, interval: string) =>
        `${base}${historyPath(from, to, interval)}`;
      const cases = [
        { name: 'history a day at 15m', url: hist(yesterday, yesterday, '15m'), n: 2000, values: 96 },
        { name: 'history a year at 1d', url: hist(yearFrom, yesterday, '1d'), n: 500, values: 365 },
        { name: 'history a year at 15m', url: hist(yearFrom, yesterday, '15m'), n: 100, values: 35_040 },
      ];
      const targets = [
        { stat: 'p99', limit: 2 },
        { stat: 'p50', limit: 10 },
        { stat: 'p50', limit: 60 },
      ] as const;
      for (const [i, c] of cases.entries()) {
        const check = await request(c.url, 'GET', auth);
        const n = (JSON.parse(check.body) as { data: { readings: unknown[] } }).data.readings.length;
        if (check.status !== 200 || n !== c.values) {
          throw new Error(`${c.name}: ${check.status}, ${n} readings, expected ${c.values}`);
        }
        const l = await withCpu(serve.pid, () =>
          sequential(c.n, Math.ceil(c.n / 10), () => ({ url: c.url, method: 'GET', headers: auth })),
        );
        const { stat, limit } = targets[i]!;
        const other = stat === 'p50' ? 'p99' : 'p50';
        row(
          `${c.name} ${stat}, 1 conn`,
          fmtMs(l[stat]),
          `<= ${limit} ms`,
          l[stat] <= limit,
          `${other} ${fmtMs(l[other])}; ${c.values.toLocaleString('en-US')} values, ` +
            `${Math.round(l.bytes / 1024)} KiB; n ${l.n}; ${cpuNote(l)}`,
        );
        if (i === 0 && baseline) {
          // Not a target: the same body from a bare fastify route, same connection pattern. Its p99 is
          // this machine's floor for a tail-latency target (scheduler and GC hiccups hit any server).
          const url = `${bare}${historyPath(yesterday, yesterday, '15m')}`;
          const f = await withCpu(baseline.pid, () =>
            sequential(c.n, Math.ceil(c.n / 10), () => ({ url, method: 'GET', headers: auth })),
          );
          row(
            '  bare fastify, same body, p99 (floor)',
            fmtMs(f.p99),
            '',
            null,
            `p50 ${fmtMs(f.p50)}; ${Math.round(f.bytes / 1024)} KiB; n ${f.n}; ${cpuNote(f)}`,
          );
        }
      }
    }

    console.log('');
    printTable();
    const busy = outsideLoad.filter((x) => x > 0.2).length;
    if (busy > 0) {
      console.log(
        `\nwarning: other processes used more than 20% of a core during ${busy} of ${outsideLoad.length} ` +
          `measurements (max ${pct(Math.max(...outsideLoad))}, see "other"): those figures are depressed; ` +
          'rerun on a quiet machine.',
      );
    }
    const missed = rows.filter((r) => r.pass === false).length;
    console.log(`\n${missed === 0 ? 'all targets met' : `${missed} target(s) missed`}`);
    if (check) for (const line of checkLines) console.log(line);
    if ((values.strict || check) && missed > 0) process.exitCode = 1;
  } finally {
    agent.destroy();
    await baseline?.stop();
    await serve.stop();
    rmSync(tmp, { recursive: true, force: true });
    if (cpuProfDir) console.log(`server CPU profile written to ${cpuProfDir}`);
  }
}

// Last, so every module-level constant above is initialized before either entry point runs.
if (process.argv.includes('--baseline-server')) await runBaselineServer();
else await main();
