// Raw TCP clients for the hardening tests: they write exactly the bytes a slow or hostile client
// would, and record when the server closes them.

import { connect, type Socket } from 'node:net';

export interface RawClient {
  socket: Socket;
  /** Resolves when the server (or the test) has closed the socket. */
  closed: Promise<void>;
  isClosed(): boolean;
  /** Everything the server sent, as latin1 text. */
  received(): string;
}

export function rawConnect(url: string, opts: { localAddress?: string } = {}): Promise<RawClient> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress: opts.localAddress });
    let isClosed = false;
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('error', () => undefined); // a reset by the server is what some tests expect
    const closed = new Promise<void>((r) =>
      socket.once('close', () => {
        isClosed = true;
        r();
      }),
    );
    socket.once('connect', () => resolve({ socket, closed, isClosed: () => isClosed, received: () => text }));
    socket.once('error', reject);
  });
}

/** Rejects if `p` has not settled within `ms`, naming `what`. */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Polls `check` every 20 ms until it is true, or rejects after `ms`. */
export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
