// startBroker: an aedes broker on a TCP port, with meterstack's authentication and topic rules. Clients
// in this same process (the service's twins, virtual meters) reach it over an in-memory stream instead
// of loopback TCP (src/mqtt/local-brokers.ts); both kinds pass the same admission, limits and guard.

import { createServer } from 'node:net';
import { Aedes, type Client } from 'aedes';
import { type EventBus, silentBus } from '../events/bus.ts';
import type { Log } from '../log/types.ts';
import { duplexPair } from '../mqtt/duplex-pair.ts';
import { registerLocalBroker } from '../mqtt/local-brokers.ts';
import { listenOnce, listenWithFallback } from '../net/listen.ts';
import type { Principal } from './access.ts';
import {
  type BrokerLimits,
  type Connection,
  checkBrokerLimits,
  createAdmission,
  DEFAULT_BROKER_LIMITS,
} from './admission.ts';
import { createGuard } from './guard.ts';
import { RefusalLog, type RefusalReport } from './refusal-log.ts';
import { indexedMemoryPersistence } from './retained-index.ts';
import { guardRoutingStack } from './routing-guard.ts';

export type { Log };

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
  /** Where refused logins and meters' connections go as events (src/events). */
  bus?: EventBus;
  /** Packet size, connection rate and cap, CONNECT timeout [MC-10]; unset fields take the defaults. */
  limits?: Partial<BrokerLimits>;
  /** Clock (ms) of the connection rate limit; default Date.now. */
  now?: () => number;
}

export interface Broker {
  /** mqtt://host:port with the port actually bound. */
  url: string;
  port: number;
  aedes: Aedes;
  /** Clients that completed CONNECT and are still connected. */
  connectedClients(): number;
  principalOf(client: Client): Principal | undefined;
  /**
   * Calls `listener` with the device id of every meter whose keep-alive ran out (the broker then drops
   * it and publishes its will): the twins tell `link_timeout` from any other will by it.
   */
  onMeterLinkTimeout(listener: (deviceId: string) => void): () => void;
  /** Refusals since start, by reason: CONNECTs refused, and connections refused or dropped [MC-10]. */
  refusals(): { logins: Record<string, number>; connections: Record<string, number> };
  /** Closes every client and the listener; resolves when all sockets are gone. Idempotent. */
  close(): Promise<void>;
}

const noLog: Log = () => {};

// CONNACK return codes, MQTT 3.1.1 table 3.1, as the refusal summary names them.
const CONNACK_REASONS: Record<number, string> = {
  1: 'unacceptable protocol version',
  2: 'identifier rejected',
  3: 'server unavailable',
  4: 'bad username or password',
  5: 'not authorized',
};

/** A name from the wire, safe for one log line. */
function printable(name: string | undefined): string {
  if (name === undefined) return '(none)';
  const clean = name.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}

function closeAedes(aedes: Aedes): Promise<void> {
  return new Promise((resolve) => aedes.close(() => resolve()));
}

export async function startBroker(opts: BrokerOptions): Promise<Broker> {
  if (typeof opts.authenticate !== 'function') throw new TypeError('authenticate must be a function');
  const host = opts.host ?? '127.0.0.1';
  const log = opts.log ?? noLog;
  const bus = opts.bus ?? silentBus();
  const limits = checkBrokerLimits({ ...DEFAULT_BROKER_LIMITS, ...opts.limits });
  // [MC-10.5] Each refusal the logs tell is an event, and so is each summary, with its count.
  const report = (r: RefusalReport) =>
    bus.emit('broker.refused', {
      client_id: r.clientId === undefined ? '' : printable(r.clientId),
      username: r.name ?? null,
      reason: r.reason,
      ...(r.peer === undefined ? {} : { peer: r.peer }),
      ...(r.count === 1 ? {} : { count: r.count }),
    });
  const admission = createAdmission(limits, log, opts.now ?? Date.now, report);
  // [MC-10.5] Refused CONNECTs: the guard reports each; past the first few of an interval only the
  // summary is logged, counted by the CONNACK reason and the username given.
  const logins = new RefusalLog({ what: 'logins', log, intervalMs: limits.refusalSummaryMs, report });
  const guard = createGuard(opts.authenticate, log, (code, line, username, clientId) =>
    logins.note(CONNACK_REASONS[code] ?? 'refused', line, printable(username), { clientId }),
  );
  const aedes = await Aedes.createBroker({
    ...guard.hooks,
    persistence: indexedMemoryPersistence(),
    connectTimeout: limits.connectTimeoutMs,
  });
  // A backlog of messages that match nothing (a subscriber left) would drain as one deep recursion.
  await guardRoutingStack(aedes);
  aedes.on('clientError', (client, err) => {
    const { errorCode, returnCode } = err as { errorCode?: number; returnCode?: number };
    // A CONNECT refused by the guard is counted and logged above; aedes reports it here once more.
    if (returnCode !== undefined) return;
    // One aedes refuses itself before authentication (protocol version, client id length).
    if (errorCode !== undefined) {
      logins.note(
        CONNACK_REASONS[errorCode] ?? `CONNACK ${errorCode}`,
        `refused ${client.id}: ${err.message}`,
        undefined,
        { clientId: client.id },
      );
      return;
    }
    log('info', `client ${client.id}: ${err.message}`);
  });
  aedes.on('connectionError', (client, err) =>
    admission.refusals.note(
      err.message,
      `MQTT connection ${client.id ?? '(no CONNECT yet)'}: ${err.message}`,
    ),
  );
  aedes.on('clientReady', (client) => {
    admission.loggedIn(client.conn as Connection);
    const principal = guard.principalOf(client);
    if (principal?.kind === 'meter')
      bus.emit('meter.connected', { client_id: client.id }, { deviceId: principal.deviceId });
  });
  const linkTimeouts = new Set<(deviceId: string) => void>();
  aedes.on('keepaliveTimeout', (client) => {
    const principal = guard.principalOf(client);
    if (principal?.kind === 'meter') for (const l of linkTimeouts) l(principal.deviceId);
  });

  const sockets = new Set<Connection>();
  /** One connection, TCP or in-memory: admitted (or closed), handed to aedes, its packet sizes watched. */
  function serve(conn: Connection): void {
    if (!admission.accept(conn)) return;
    sockets.add(conn);
    conn.once('close', () => sockets.delete(conn));
    aedes.handle(conn);
    admission.watchPacketSizes(conn);
  }
  const server = createServer((socket) => {
    // With Nagle on, the small PUBLISH/PUBACK packets of a command round trip wait for the
    // peer's delayed ACK: 40-90 ms instead of well under one.
    socket.setNoDelay(true);
    serve(socket);
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
    admission.close();
    logins.close();
    throw err;
  }
  // accept() can fail (EMFILE at the open-files limit); an 'error' event with no listener would
  // end the process.
  server.on('error', (err: NodeJS.ErrnoException) =>
    admission.refusals.note(`accept failed (${err.code})`, `MQTT listener: ${err.message}`),
  );
  const url = `mqtt://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log('info', `MQTT broker listening on ${url}`);
  // Clients in this process connect without a socket; the broker sees the server's side of the pair.
  const unregisterLocal = registerLocalBroker(host, port, () => {
    const [client, server] = duplexPair();
    serve(server);
    return client;
  });

  let closing: Promise<void> | undefined;
  async function shutdown(): Promise<void> {
    unregisterLocal();
    const listenerClosed = new Promise<void>((resolve) => server.close(() => resolve()));
    await closeAedes(aedes);
    // aedes closes the clients it knows; this also ends sockets that never sent CONNECT.
    for (const socket of sockets) socket.destroy();
    await listenerClosed;
    admission.close();
    logins.close();
  }

  return {
    url,
    port,
    aedes,
    connectedClients: () => aedes.connectedClients,
    principalOf: guard.principalOf,
    onMeterLinkTimeout: (listener) => {
      linkTimeouts.add(listener);
      return () => linkTimeouts.delete(listener);
    },
    refusals: () => ({
      logins: Object.fromEntries(logins.totals),
      connections: Object.fromEntries(admission.refusals.totals),
    }),
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
}
