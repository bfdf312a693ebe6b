// `meterstack serve` as a child process for benchmarks: started through bash so its soft open-files
// limit can be raised to the hard one (each MQTT connection is a file descriptor), with its banner
// parsed, its RSS and CPU time read from /proc, and /sim/v1 calls made over real HTTP.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cpuSecondsOf } from './proc.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MAX_OUTPUT = 256 * 1024;

export interface Serve {
  proc: ChildProcess;
  pid: number;
  httpUrl: string;
  mqttUrl: string;
  adminToken: string;
  /** What the child wrote to stdout and stderr (the last 256-512 KiB of it). */
  output(): string;
  /** Calls `f` with each whole line the child writes from now on; returns the unsubscribe. */
  onLine(f: (line: string) => void): () => void;
  /** Resident set size of the serve process, MiB (VmRSS). */
  rssMiB(): number;
  /** Peak resident set size, MiB (VmHWM). */
  peakRssMiB(): number;
  /** user + system CPU seconds used so far. */
  cpuSeconds(): number;
  /** POST/GET /sim/v1/...; throws on a non-2xx answer. */
  sim<T>(method: string, path: string, body?: unknown): Promise<T>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `nodeArgs` go to node itself, e.g. ['--cpu-prof', '--cpu-prof-dir=/tmp/prof']. */
export async function startServe(
  args: string[],
  opts: { adminToken?: string; nodeArgs?: string[] } = {},
): Promise<Serve> {
  const adminToken = opts.adminToken ?? 'bench-admin-token';
  const quote = (a: string) => `'${a.replaceAll("'", "'\\''")}'`;
  const quoted = args.map(quote).join(' ');
  const nodeArgs = (opts.nodeArgs ?? []).map(quote).join(' ');
  const proc = spawn(
    'bash',
    [
      '-c',
      `ulimit -n $(ulimit -Hn); exec node ${nodeArgs} bin/meterstack.js serve --admin-token '${adminToken}' ${quoted}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  // Never leave a serve behind, even when the benchmark itself crashes.
  const killOnExit = () => proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  proc.once('exit', () => process.off('exit', killOnExit));
  // Both pipes are always read, so a child that logs a lot (JSON lines at info: its stdout is a pipe)
  // never blocks on a full pipe; only the last MAX_OUTPUT characters are kept.
  let out = '';
  const lineListeners = new Set<(line: string) => void>();
  const reader = () => {
    let partial = '';
    return (d: string) => {
      out += d;
      if (out.length > 2 * MAX_OUTPUT) out = out.slice(-MAX_OUTPUT);
      if (lineListeners.size === 0) return;
      const lines = (partial + d).split('\n');
      partial = lines.pop()!;
      for (const line of lines) for (const f of lineListeners) f(line);
    };
  };
  proc.stdout!.setEncoding('utf8').on('data', reader());
  proc.stderr!.setEncoding('utf8').on('data', reader());
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  let http: RegExpExecArray | null = null;
  let mqtt: RegExpExecArray | null = null;
  while (!(http && mqtt)) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
    http = /HTTP API\s+(http:\/\/\S+)/.exec(out);
    mqtt = /MQTT broker\s+(mqtt:\/\/\S+)/.exec(out);
  }
  const pid = proc.pid!;
  const status = (field: string) => {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  };
  const httpUrl = http[1]!;
  return {
    proc,
    pid,
    httpUrl,
    mqttUrl: mqtt[1]!,
    adminToken,
    output: () => out,
    onLine(f) {
      lineListeners.add(f);
      return () => lineListeners.delete(f);
    },
    rssMiB: () => status('VmRSS'),
    peakRssMiB: () => status('VmHWM'),
    cpuSeconds: () => cpuSecondsOf(pid),
    async sim<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await fetch(`${httpUrl}/sim/v1${path}`, {
        method,
        headers: {
          'x-admin-token': adminToken,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as { success: boolean; data: T };
      if (!res.ok || !json.success)
        throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}

/** Runs `fn` over `items` with at most `limit` at a time. */
export async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!, i);
      }
    }),
  );
  return results;
}
