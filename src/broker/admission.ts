// Who may open an MQTT connection and how much it may send before the broker drops it (issue 8
// item 7): a rate of new connections [MC-10.3], a cap on open ones that evicts the oldest not yet
// logged in [MC-10.4], and the packet size limits of packet-limit.ts checked on the raw bytes
// [MC-10.1, MC-10.2]. The broker calls `accept` for every connection before aedes sees it: a TCP socket,
// or an in-memory stream from a client in this process (src/mqtt/local-brokers.ts), which pays the same.

import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Log } from './broker.ts';
import { DEFAULT_MAX_PACKET_BYTES, PacketScanner } from './packet-limit.ts';
import { RefusalLog, type RefusalReport } from './refusal-log.ts';

export interface BrokerLimits {
  /** [MC-10.1] Largest remaining length of a packet. */
  maxPacketBytes: number;
  /** [MC-10.3] New connections per second, with a burst of as many. */
  connectRate: number;
  /** [MC-10.4] Open connections at most. */
  maxConnections: number;
  /** [MC-10.4] Time from accept to CONNECT. */
  connectTimeoutMs: number;
  /** [MC-10.5] Length of a refusal-summary interval. */
  refusalSummaryMs: number;
}

export const DEFAULT_BROKER_LIMITS: BrokerLimits = {
  maxPacketBytes: DEFAULT_MAX_PACKET_BYTES,
  connectRate: 2_000,
  maxConnections: 20_000,
  connectTimeoutMs: 10_000,
  refusalSummaryMs: 10_000,
};

export function checkBrokerLimits(l: BrokerLimits): BrokerLimits {
  for (const [name, v] of Object.entries(l)) {
    if (!Number.isInteger(v) || v < 1)
      throw new TypeError(`MQTT limit ${name} must be a positive integer, got ${v}`);
  }
  return l;
}

/** A token bucket: `rate` tokens per second, holding at most `rate`. Time comes from `now` (ms). */
export class TokenBucket {
  #tokens: number;
  #last: number;
  constructor(
    private readonly rate: number,
    private readonly now: () => number,
  ) {
    this.#tokens = rate;
    this.#last = now();
  }

  take(): boolean {
    const t = this.now();
    this.#tokens = Math.min(this.rate, this.#tokens + ((t - this.#last) * this.rate) / 1000);
    this.#last = t;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/** A connection as admission sees it: a `net.Socket`, or an in-memory stream named like one. */
export type Connection = Duplex & { readonly remoteAddress?: string; readonly remotePort?: number };

export interface Admission {
  /** Takes a new socket or closes it; true when aedes may have it. */
  accept(socket: Connection): boolean;
  /**
   * Closes the socket as soon as a packet's fixed header declares more than the limits allow.
   * Call it after aedes.handle(socket), so aedes' 'readable' listener is in place first.
   */
  watchPacketSizes(socket: Connection): void;
  /** The socket's client completed CONNECT: it no longer counts as a newcomer to evict. */
  loggedIn(socket: Connection): void;
  /** Refused and dropped connections, by reason. */
  refusals: RefusalLog;
  close(): void;
}

function peer(socket: Connection): string {
  // An in-memory connection has a name (`in-process`) and no port.
  return socket instanceof Socket
    ? `${socket.remoteAddress}:${socket.remotePort}`
    : String(socket.remoteAddress);
}

export function createAdmission(
  limits: BrokerLimits,
  log: Log,
  now: () => number,
  report?: (r: RefusalReport) => void,
): Admission {
  const bucket = new TokenBucket(limits.connectRate, now);
  const refusals = new RefusalLog({ what: 'connections', log, intervalMs: limits.refusalSummaryMs, report });
  const open = new Set<Connection>();
  // Not logged in yet, oldest first: the ones a newcomer may evict at the cap.
  const newcomers = new Set<Connection>();

  function watchPacketSizes(socket: Connection): void {
    const scanner = new PacketScanner(limits.maxPacketBytes);
    // aedes reads with 'readable' + read(); read() emits 'data' with the very chunk it returns, before
    // aedes' parser sees it, so this checks each fixed header before its body is buffered.
    const onData = (chunk: Buffer) => {
      const verdict = scanner.feed(chunk);
      if (verdict.ok) return;
      socket.off('data', onData);
      refusals.note(
        verdict.rule === 'MC-10.2'
          ? 'CONNECT too large'
          : verdict.rule === 'MC-10.1'
            ? 'packet too large'
            : 'malformed',
        `closing MQTT connection from ${peer(socket)}: ${verdict.reason} [${verdict.rule}]`,
        undefined,
        { peer: peer(socket) },
      );
      socket.destroy();
    };
    socket.on('data', onData);
  }

  return {
    refusals,
    watchPacketSizes,
    accept(socket) {
      if (!bucket.take()) {
        refusals.note(
          'over the connection rate',
          `refused MQTT connection from ${peer(socket)}: more than ${limits.connectRate} new connections per second [MC-10.3]`,
          undefined,
          { peer: peer(socket) },
        );
        socket.destroy();
        return false;
      }
      if (open.size >= limits.maxConnections) {
        const oldest = newcomers.values().next();
        if (oldest.done) {
          refusals.note(
            'at the connection cap',
            `refused MQTT connection from ${peer(socket)}: ${limits.maxConnections} connections open, all logged in [MC-10.4]`,
            undefined,
            { peer: peer(socket) },
          );
          socket.destroy();
          return false;
        }
        refusals.note(
          'evicted before login at the connection cap',
          `closing MQTT connection from ${peer(oldest.value)}: not logged in, making room at the cap of ${limits.maxConnections} [MC-10.4]`,
          undefined,
          { peer: peer(oldest.value) },
        );
        newcomers.delete(oldest.value);
        open.delete(oldest.value);
        oldest.value.destroy();
      }
      open.add(socket);
      newcomers.add(socket);
      socket.once('close', () => {
        open.delete(socket);
        newcomers.delete(socket);
      });
      return true;
    },
    loggedIn(socket) {
      newcomers.delete(socket);
    },
    close() {
      refusals.close();
    },
  };
}
