// `meterstack fleet` as a child process (a fleet worker, issue 11 §2): spawned from the sources, its
// output collected, ready once it logs that its meters are up.

import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Exit, REPO_ROOT } from './child.ts';

const BIN = fileURLToPath(new URL('./meterstack.js', import.meta.url));

export class FleetProcess {
  readonly proc: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;

  constructor(args: string[]) {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('METERSTACK_')));
    this.proc = spawn(process.execPath, [BIN, 'fleet', ...args], {
      cwd: REPO_ROOT,
      env,
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

  /** Resolves once the worker's meters are connected; rejects if it exits first. */
  async ready(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    while (!/meters on mqtt/.test(this.stdout)) {
      if (exited || Date.now() > deadline)
        throw new Error(
          `fleet ${exited ? 'exited' : 'did not start'}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`,
        );
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill(signal);
    return this.exited;
  }
}

/** Runs `meterstack fleet` to completion (for flags or refusals that make it exit at once). */
export async function runFleet(
  args: string[],
  timeoutMs = 30_000,
): Promise<Exit & { stdout: string; stderr: string }> {
  const p = new FleetProcess(args);
  const timer = setTimeout(() => p.proc.kill('SIGKILL'), timeoutMs);
  const exit = await p.exited;
  clearTimeout(timer);
  return { ...exit, stdout: p.stdout, stderr: p.stderr };
}
