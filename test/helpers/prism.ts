// Stoplight Prism's validating proxy in front of a running service: every answer that passes through
// it carries an `sl-violations` header listing where the request or the response broke the document.
// Without `--errors` Prism forwards even a request that breaks the document (the point of sending bad
// input), so a test reads the header instead of relying on Prism's own error answers.

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const PRISM = fileURLToPath(new URL('../../node_modules/.bin/prism', import.meta.url));

export interface Violation {
  location: string[];
  severity: string;
  code: string | number;
  message: string;
}

export interface PrismProxy {
  url: string;
  stop(): Promise<void>;
}

/** A port free right now: listen on 0, read it, close (Prism needs a number). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts `prism proxy <doc> <upstream>` and resolves once it listens (or rejects with its output). */
export async function startPrismProxy(
  docFile: string,
  upstream: string,
  timeoutMs = 30_000,
): Promise<PrismProxy> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    PRISM,
    ['proxy', docFile, upstream, '-p', String(port), '-h', '127.0.0.1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`prism did not start in ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`prism exited with ${code}:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export function violationsOf(headers: Headers): Violation[] {
  const raw = headers.get('sl-violations');
  return raw ? (JSON.parse(raw) as Violation[]) : [];
}
