// Debian's Mosquitto as a bench peer and external broker: our own instance on a free port with a
// generated config (never the machine's 1883), its CPU time read from /proc.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSecondsOf } from './proc.ts';

export interface BenchMosquitto {
  url: string;
  version: string;
  /** Whether meterstack manages meters' logins on it (dynamic security). */
  managed: boolean;
  /** The service's login, and `serve`'s flags to use this broker. */
  serviceLogin: { username: string; password: string };
  serveArgs: string[];
  /** Logins for meters where the broker does not check them (plain). */
  meterLogins(ids: string[]): Promise<{ deviceId: string; username: string; password: string }[]>;
  cpuSeconds(): number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** A plain Mosquitto: anonymous logins, queues large enough that a slow subscriber loses nothing. */
export async function startBenchMosquitto(extra: string[] = []): Promise<BenchMosquitto> {
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-mosquitto-'));
  const port = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      // Mosquitto's defaults drop QoS 1 messages past 1,000 queued for one client: a subscriber that
      // falls behind for a moment would lose readings (docs/scale.md).
      'max_queued_messages 1000000',
      'max_inflight_messages 0',
      'persistence false',
      'set_tcp_nodelay true',
      ...extra,
      '',
    ].join('\n'),
  );
  const proc: ChildProcess = spawn('/usr/sbin/mosquitto', ['-c', conf], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const killOnExit = () => proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`mosquitto did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const version =
    /mosquitto version (\S+)/.exec(spawnSync('/usr/sbin/mosquitto', ['-h']).stdout.toString())?.[1] ?? '?';
  const serviceLogin = { username: 'meterstack-service', password: 'bench' };
  return {
    url: `mqtt://127.0.0.1:${port}`,
    version,
    managed: false,
    serviceLogin,
    serveArgs: [
      `--broker=mqtt://${serviceLogin.username}:${serviceLogin.password}@127.0.0.1:${port}`,
      '--broker-logins=unmanaged',
    ],
    meterLogins: async (ids) => ids.map((id) => ({ deviceId: id, username: id, password: 'bench' })),
    cpuSeconds: () => cpuSecondsOf(proc.pid!),
    async stop() {
      process.off('exit', killOnExit);
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Edge brokers (docs/scale.md): a core Mosquitto the service uses and `edges` Mosquittos the meters
 * connect to, each bridged to the core, its meters' events up and commands down. One process cannot
 * hold 50,000 connections where the open-files limit is 20,000 (ulimit -Hn); several can.
 */
export async function startEdgeBrokers(
  edges: number,
): Promise<{ core: BenchMosquitto; edges: BenchMosquitto[] }> {
  const core = await startBenchMosquitto();
  const port = new URL(core.url).port;
  const up = ['info', 'state', 'availability', 'telemetry', 'reply'];
  const list = await Promise.all(
    Array.from({ length: edges }, (_, i) =>
      startBenchMosquitto([
        `connection edge-${i + 1}`,
        `address 127.0.0.1:${port}`,
        `remote_clientid meterstack-edge-${i + 1}`,
        'cleansession true',
        'try_private true',
        ...up.map((ch) => `topic meterstack/v1/+/${ch} out 1`),
        'topic meterstack/v1/+/cmd in 1',
      ]),
    ),
  );
  return { core, edges: list };
}
