// startBroker: an aedes broker on a TCP port, with meterstack's authentication and topic rules.

import { createServer, type Socket } from 'node:net';
import { Aedes, type Client } from 'aedes';
import { listenOnce, listenWithFallback } from '../net/listen.ts';
import type { Principal } from './access.ts';
import { createGuard } from './guard.ts';
import { indexedMemoryPersistence } from './retained-index.ts';

export type Log = (level: 'info' | 'warn' | 'error', msg: string) => void;

/** Maps CONNECT credentials to a principal; null refuses them. */
export type Authenticate = (
  username: string,
  password: string,
) => Promise<Principal | null> | Principal | null;

export interface BrokerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 = ephemeral. If taken, the next free port up to +20 is used unless strictPort is set. */
  port: number;
  strictPort?: boolean;
  authenticate: Authenticate;
  log?: Log;
}

export interface Broker {
  /** mqtt://host:port with the port actually bound. */
  url: string;
  port: number;
  aedes: Aedes;
  /** Clients that completed CONNECT and are still connected. */
  connectedClients(): number;
  principalOf(client: Client): Principal | undefined;
  /** Closes every client and the listener; resolves when all sockets are gone. Idempotent. */
  close(): Promise<void>;
}

const noLog: Log = () => {};

function closeAedes(aedes: Aedes): Promise<void> {
  return new Promise((resolve) => aedes.close(() => resolve()));
}

export async function startBroker(opts: BrokerOptions): Promise<Broker> {
  if (typeof opts.authenticate !== 'function') throw new TypeError('authenticate must be a function');
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? noLog;
  const guard = createGuard(opts.authenticate, log);
  const aedes = await Aedes.createBroker({ ...guard.hooks, persistence: indexedMemoryPersistence() });
  aedes.on('clientError', (client, err) => log('info', `client ${client.id}: ${err.message}`));
  aedes.on('connectionError', (client, err) => log('info', `connection ${client.id}: ${err.message}`));

  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    // With Nagle on, the small PUBLISH/PUBACK packets of a command round trip wait for the
    // peer's delayed ACK: 40-90 ms instead of well under one.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    aedes.handle(socket);
  });

  let port: number;
  try {
    port = await listenWithFallback((p) => listenOnce(server, host, p), {
      host,
      port: opts.port,
      strict: opts.strictPort ?? false,
      what: 'MQTT',
      log,
    });
  } catch (err) {
    await closeAedes(aedes);
    throw err;
  }
  const url = `mqtt://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log('info', `MQTT broker listening on ${url}`);

  let closing: Promise<void> | undefined;
  async function shutdown(): Promise<void> {
    const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    await closeAedes(aedes);
    // aedes closes the clients it knows; this also ends sockets that never sent CONNECT.
    for (const socket of sockets) socket.destroy();
    await listenerClosed;
  }

  return {
    url,
    port,
    aedes,
    connectedClients: () => aedes.connectedClients,
    principalOf: guard.principalOf,
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
}
