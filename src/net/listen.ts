// Never assume a port is free: when the one asked for is taken, say so and take the next free one
// (as Vite does), unless strict. Port 0 asks the OS for an ephemeral port, which cannot be in use.
// Used by the MQTT broker and the HTTP server alike.

import type { AddressInfo, Server } from 'node:net';

export const MAX_PORT_TRIES = 20;

export interface ListenOptions {
  /** Port asked for. */
  port: number;
  strict: boolean;
  /** Names the server in messages: 'MQTT', 'HTTP'. */
  what: string;
  host?: string;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

/** Tries `listen(candidate)` from the asked port upwards; resolves with the port actually bound. */
export async function listenWithFallback(
  listen: (port: number) => Promise<number>,
  opts: ListenOptions,
): Promise<number> {
  const { port, strict, what } = opts;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`${what} port must be an integer in 0..65535, got ${port}`);
  }
  const where = opts.host ? ` on ${opts.host}` : '';
  const last = port === 0 || strict ? port : Math.min(port + MAX_PORT_TRIES, 65535);
  for (let candidate = port; candidate <= last; candidate++) {
    try {
      const bound = await listen(candidate);
      if (bound !== port && port !== 0)
        opts.log?.('warn', `${what} port ${port} is in use, using ${bound} instead`);
      return bound;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      if (strict) {
        throw new Error(`${what} port ${port}${where} is in use (--strict-port is set, not trying another)`, {
          cause: err,
        });
      }
    }
  }
  throw new Error(`${what} ports ${port}..${last}${where} are all in use`);
}

/** listen() for a plain net/http server, as a promise of the bound port. */
export function listenOnce(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * The HTTP server of `serve` and of an API instance: listened on `host` from `port` up (unless strict),
 * and the URL it answers on (an IPv6 host in brackets).
 */
export async function listenHttp(
  server: Server,
  opts: { host: string; port: number; strict: boolean; log?: ListenOptions['log'] },
): Promise<string> {
  const port = await listenWithFallback((p) => listenOnce(server, opts.host, p), {
    port: opts.port,
    strict: opts.strict,
    what: 'HTTP',
    host: opts.host,
    log: opts.log,
  });
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return `http://${host}:${port}`;
}
