// A real Mosquitto 2 (Debian's /usr/sbin/mosquitto) on an ephemeral port for a test, with the
// dynamic-security plugin (`startMosquitto()`) or without it (`{ dynsec: false }`, a broker that lacks
// the plugin). Its config, dynsec file and log live in a temp directory removed by `stop()`. Never the
// machine's own Mosquitto on 1883.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './prism.ts';

export const MOSQUITTO = '/usr/sbin/mosquitto';
export const DYNSEC_PLUGIN = '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so';
const MOSQUITTO_CTRL = '/usr/bin/mosquitto_ctrl';

/** True when Mosquitto and its plugin are installed; tests skip otherwise, except under CI=true. */
export const hasMosquitto = existsSync(MOSQUITTO) && existsSync(DYNSEC_PLUGIN) && existsSync(MOSQUITTO_CTRL);
/** Skip a Mosquitto test here (not installed), but never in CI, where it must fail instead. */
export const skipWithoutMosquitto = !hasMosquitto && process.env['CI'] !== 'true';

export interface MosquittoOptions {
  /** Load the dynamic-security plugin (default true). */
  dynsec?: boolean;
  /** Extra lines for mosquitto.conf (e.g. `max_packet_size 263170`). */
  conf?: string[];
}

export interface RunningMosquitto {
  port: number;
  /** mqtt://127.0.0.1:port, no login. */
  url: string;
  /** The dynsec admin (may administer `$CONTROL/dynamic-security/v1`), or a plain login without dynsec. */
  admin: { username: string; password: string };
  /** `--broker` value: mqtt://admin:password@127.0.0.1:port. */
  brokerUrl: string;
  /** Mosquitto's own log so far. */
  log(): string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** Starts Mosquitto and resolves once it accepts TCP connections (or rejects with its log). */
export async function startMosquitto(opts: MosquittoOptions = {}): Promise<RunningMosquitto> {
  const dynsec = opts.dynsec ?? true;
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-mosquitto-'));
  const port = await freePort();
  // Not `admin`: that is meterstack's watcher login, which the service creates itself.
  const admin = { username: 'dynsec-admin', password: randomBytes(12).toString('base64url') };
  const logFile = join(dir, 'mosquitto.log');
  const lines = [
    // Run as root, Mosquitto drops to user `mosquitto`, who may not read this root-only temp dir.
    ...(process.getuid?.() === 0 ? ['user root'] : []),
    `listener ${port} 127.0.0.1`,
    'allow_anonymous false',
    // Mosquitto leaves Nagle on by default: every small answer (a PUBACK, a dynsec response, a
    // command) then waits ~40 ms for the peer's delayed ACK (docs/brokers.md).
    'set_tcp_nodelay true',
    'persistence false',
    `log_dest file ${logFile}`,
    'log_type error',
    'log_type warning',
    'log_type notice',
    'log_type information',
  ];
  if (dynsec) {
    const file = join(dir, 'dynamic-security.json');
    execFileSync(MOSQUITTO_CTRL, ['dynsec', 'init', file, admin.username, admin.password], {
      stdio: 'ignore',
    });
    lines.push(`plugin ${DYNSEC_PLUGIN}`, `plugin_opt_config_file ${file}`);
  } else {
    const pw = join(dir, 'passwd');
    writeFileSync(pw, '');
    execFileSync('/usr/bin/mosquitto_passwd', ['-b', pw, admin.username, admin.password], {
      stdio: 'ignore',
    });
    lines.push(`password_file ${pw}`);
  }
  lines.push(...(opts.conf ?? []));
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `${lines.join('\n')}\n`);

  const proc = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const log = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '') + stderr;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitListening(port, proc, 10_000);
  } catch (err) {
    const text = log();
    await stop();
    throw new Error(`${(err as Error).message}\n${text}`);
  }
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    admin,
    brokerUrl: `mqtt://${admin.username}:${encodeURIComponent(admin.password)}@127.0.0.1:${port}`,
    log,
    proc,
    stop,
  };
}

async function waitListening(port: number, proc: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`mosquitto exited with ${proc.exitCode} before listening`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`mosquitto did not listen on 127.0.0.1:${port} within ${timeoutMs} ms`);
}
