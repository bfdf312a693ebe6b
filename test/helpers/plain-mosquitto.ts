// A plain Mosquitto for tests (issue 11 §4): Debian's `mosquitto` on an ephemeral port, anonymous
// logins allowed, no persistence, a generated config in a temp dir; never the machine's 1883. (The
// dynamic-security broker of §1 is test/helpers/mosquitto.ts's job; this one only needs to carry
// messages.) Absent binary: the test skips, except under CI=true, where it must fail.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const MOSQUITTO = '/usr/sbin/mosquitto';

/** Why Mosquitto cannot run here, or null. Under CI=true a test must not skip for it. */
export function mosquittoMissing(): string | null {
  const r = spawnSync(MOSQUITTO, ['-h'], { encoding: 'utf8' });
  return r.error ? `mosquitto not found at ${MOSQUITTO} (apt-get install mosquitto)` : null;
}

export interface PlainMosquitto {
  /** mqtt://127.0.0.1:port */
  url: string;
  port: number;
  proc: ChildProcess;
  log(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function listening(port: number, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = tcpConnect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

export async function startPlainMosquitto(): Promise<PlainMosquitto> {
  const dir = mkdtempSync(join(tmpdir(), 'ms-mosq-'));
  // A port taken between freePort and mosquitto's bind: try another.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const conf = join(dir, 'mosquitto.conf');
    writeFileSync(
      conf,
      [
        `listener ${port} 127.0.0.1`,
        'allow_anonymous true',
        'persistence false',
        'log_dest stderr',
        'log_type error',
        'log_type warning',
        'max_queued_messages 100000',
        '',
      ].join('\n'),
    );
    const proc = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      log += d;
    });
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    let dead = false;
    void exited.then(() => {
      dead = true;
    });
    if ((await listening(port, Date.now() + 5_000)) && !dead) {
      return {
        url: `mqtt://127.0.0.1:${port}`,
        port,
        proc,
        log: () => log,
        async stop() {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
          await exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    proc.kill('SIGKILL');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
  throw new Error('mosquitto did not start on an ephemeral port in 5 attempts');
}
