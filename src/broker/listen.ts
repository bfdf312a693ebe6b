// Bind a TCP server without assuming the port is free: on EADDRINUSE try the next port, up to
// MAX_PORT_TRIES further, unless the caller asked for exactly this port.

import type { AddressInfo, Server } from 'node:net';
import type { Log } from './broker.ts';

export const MAX_PORT_TRIES = 20;

export interface ListenOptions {
  host: string;
  /** 0 asks the OS for an ephemeral port, which cannot be in use. */
  port: number;
  strictPort: boolean;
  log: Log;
}

function listenOnce(server: Server, host: string, port: number): Promise<number> {
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

function isAddressInUse(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
}

/** Resolves with the port actually bound. */
export async function listenWithFallback(server: Server, opts: ListenOptions): Promise<number> {
  const { host, port, strictPort, log } = opts;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`port must be an integer in 0..65535, got ${port}`);
  }
  const last = port === 0 ? 0 : Math.min(port + MAX_PORT_TRIES, 65535);
  for (let candidate = port; candidate <= last; candidate++) {
    try {
      const bound = await listenOnce(server, host, candidate);
      if (bound !== port && port !== 0) log('warn', `MQTT port ${port} is in use, using ${bound} instead`);
      return bound;
    } catch (err) {
      if (!isAddressInUse(err)) throw err;
      if (strictPort) {
        throw new Error(`MQTT port ${port} on ${host} is in use (strictPort is set, not trying another)`, {
          cause: err,
        });
      }
    }
  }
  throw new Error(`MQTT ports ${port}..${last} on ${host} are all in use`);
}
