// Real pseudo-terminal pairs made by socat, and `meterstack bridge` / `meterstack meter` as child
// processes. Without socat the tests fail under CI=true (.ci/run installs it) and skip otherwise.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../helpers/meterstack.js', import.meta.url));

export const hasSocat = spawnSync('socat', ['-V']).status === 0;
/** Skip the suite when socat is missing, unless CI=true, where the missing tool is a failure. */
export const skipWithoutSocat = !hasSocat && process.env['CI'] !== 'true';
if (skipWithoutSocat) console.warn('skipping serial tests: socat not found (CI=true makes this fail)');

export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A linked pty pair: bytes written to `a` come out of `b` and back. kill() makes both vanish. */
export class PtyPair {
  readonly a: string;
  readonly b: string;
  #proc: ChildProcess | null = null;

  constructor(dir: string) {
    this.a = join(dir, 'a');
    this.b = join(dir, 'b');
  }

  async start(): Promise<this> {
    if (!hasSocat) throw new Error('socat is required (CI=true)');
    this.#proc = spawn(
      'socat',
      ['-d', '-d', `pty,raw,echo=0,link=${this.a}`, `pty,raw,echo=0,link=${this.b}`],
      { stdio: 'ignore' },
    );
    await until(() => existsSync(this.a) && existsSync(this.b), 5_000, 'socat ptys');
    return this;
  }

  async kill(): Promise<void> {
    const proc = this.#proc;
    this.#proc = null;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
    await until(() => !existsSync(this.a) && !existsSync(this.b), 2_000, 'pty links to go');
  }
}

/** `meterstack <command> ...` as a child process, with its output collected. */
export class CliProcess {
  readonly proc: ChildProcess;
  output = '';

  constructor(args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.proc = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
    for (const stream of [this.proc.stdout!, this.proc.stderr!]) {
      stream.setEncoding('utf8').on('data', (d: string) => {
        this.output += d;
      });
    }
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGTERM');
    await exited;
  }
}
