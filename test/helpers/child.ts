// `meterstack serve` as a child process, for what only a real process can show: a kill -9, a signal,
// an exit code. Parses the banner for the URLs; collects stdout and stderr.

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = fileURLToPath(new URL('./meterstack.js', import.meta.url));
const SERVE_AS = fileURLToPath(new URL('./serve-as.js', import.meta.url));

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export class ServeProcess {
  readonly proc: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;

  /** `as`: run as this user and group (only root may), e.g. nobody, whom file modes do stop. */
  constructor(
    args: string[],
    env: Record<string, string | undefined> = {},
    as?: { uid: number; gid: number },
  ) {
    // Only the variables given here, so the caller's METERSTACK_* do not leak into the child.
    const base = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_')),
    );
    const argv = as ? [SERVE_AS, String(as.uid), String(as.gid), ...args] : [BIN, 'serve', ...args];
    this.proc = spawn(process.execPath, argv, {
      cwd: REPO_ROOT,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.stdout += d;
    });
    this.proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
    });
    this.exited = new Promise((resolve) =>
      this.proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
  }

  /** Resolves with the URLs of the banner once the service is up; rejects if it exits first. */
  async ready(timeoutMs = 20_000): Promise<{ httpUrl: string; mqttUrl: string }> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    for (;;) {
      const http = /HTTP API\s+(http:\/\/\S+)/.exec(this.stdout);
      const mqtt = /MQTT broker\s+(mqtt:\/\/\S+)/.exec(this.stdout);
      if (http && mqtt) return { httpUrl: http[1]!, mqttUrl: mqtt[1]! };
      if (exited || Date.now() > deadline) {
        throw new Error(
          `serve ${exited ? 'exited' : 'did not start'}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`,
        );
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Sends `signal` and waits for the process to end. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
    return this.exited;
  }
}

/** Runs `meterstack serve` to completion (for flags that make it exit at once). */
export async function runServe(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
  as?: { uid: number; gid: number },
): Promise<Exit & { stdout: string; stderr: string }> {
  const p = new ServeProcess(args, env, as);
  const timer = setTimeout(() => p.proc.kill('SIGKILL'), timeoutMs);
  const exit = await p.exited;
  clearTimeout(timer);
  return { ...exit, stdout: p.stdout, stderr: p.stderr };
}
