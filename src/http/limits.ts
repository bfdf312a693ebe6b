// What one HTTP client may hold of the server: how long it may take to send its headers and its body,
// how long an idle keep-alive connection stays open, and how many connections there are at once.
// Without these a few hundred slow clients hold their sockets for minutes and starve everyone
// (issue 8 item 6). Node's http server does the timing; the cap is `capConnections` below.

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Log } from '../log/types.ts';

export interface HttpLimits {
  /** A client that has not sent a whole request head by then gets 408 and is closed. */
  headersTimeoutMs: number;
  /** The same for the whole request, head and body (counted from its start). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; at the cap a new one evicts the oldest slow or idle one. */
  maxConnections: number;
  /**
   * [SNAP-6] The largest snapshot file `POST /sim/v1/snapshots/import` takes (spec-decisions 114): a
   * Content-Length over it is a 413 before the body is read; a body without one is counted as it comes.
   */
  snapshotFileBytes: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1024,
  snapshotFileBytes: 2 * 1024 ** 3,
};

export function checkHttpLimits(l: HttpLimits): HttpLimits {
  for (const [name, v] of Object.entries(l)) {
    if (!Number.isInteger(v) || v < 1)
      throw new TypeError(`HTTP limit ${name} must be a positive integer, got ${v}`);
  }
  // Node refuses a head timeout longer than the whole request's.
  if (l.headersTimeoutMs > l.requestTimeoutMs) {
    throw new TypeError(
      `HTTP headers timeout (${l.headersTimeoutMs} ms) must not exceed the request timeout (${l.requestTimeoutMs} ms)`,
    );
  }
  return l;
}

/**
 * Fastify's options for the timeouts. Node checks expiry on a timer (`connectionsCheckingInterval`,
 * 30 s by default), so a 10 s head timeout would really be up to 40 s: it is checked 4 times per
 * head timeout instead, at most once a second.
 */
export function serverTimeoutOptions(l: HttpLimits) {
  return {
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    http: {
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: l.requestTimeoutMs,
      keepAliveTimeout: l.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(l.headersTimeoutMs / 4))),
    },
  };
}

export interface ConnectionCapStats {
  open: number;
  /** Slow or idle connections closed to make room for a new one. */
  evicted: number;
  /** New connections closed because every open one was busy being answered. */
  refused: number;
}

interface Tracked {
  req?: IncomingMessage;
  res?: ServerResponse;
  /** When it was last active (a tick of this cap): opened, or a request came in. */
  at: number;
}

/**
 * Keeps at most `max` connections open. A plain cap (server.maxConnections) would let a flood of
 * slow clients take every slot and lock out /healthz, so at the cap a new connection evicts the
 * oldest one that is not being answered: still sending its head or body, or idle between requests.
 * Only when every connection is busy with a response is the newcomer closed instead.
 */
export function capConnections(server: Server, max: number, log: Log = () => {}): () => ConnectionCapStats {
  // Each socket's last activity as a tick: a request only writes a number (every request comes here),
  // and only a connection at the cap looks for the oldest.
  const open = new Map<Socket, Tracked>();
  let tick = 0;
  const stats = { evicted: 0, refused: 0 };
  let reported = { evicted: 0, refused: 0 };
  let reportTimer: NodeJS.Timeout | null = null;

  // No request yet or its body still coming in (slow client), or its response sent (idle keep-alive).
  const evictable = (t: Tracked) => !t.req?.complete || t.res?.writableEnded === true;

  const report = () => {
    reportTimer = null;
    const evicted = stats.evicted - reported.evicted;
    const refused = stats.refused - reported.refused;
    reported = { ...stats };
    log(
      'warn',
      `HTTP at its cap of ${max} connections in the last 10 s: closed ${evicted} slow or idle ones to make room, refused ${refused} new ones`,
    );
  };
  const noteCapReached = () => {
    if (reportTimer) return;
    reportTimer = setTimeout(report, 10_000);
    reportTimer.unref();
  };

  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      let victim: Socket | undefined;
      let oldest = Number.POSITIVE_INFINITY;
      for (const [s, t] of open) {
        if (t.at < oldest && evictable(t)) {
          victim = s;
          oldest = t.at;
        }
      }
      noteCapReached();
      if (victim) {
        open.delete(victim);
        victim.destroy();
        stats.evicted++;
      } else {
        stats.refused++;
        socket.destroy();
        return;
      }
    }
    open.set(socket, { at: ++tick });
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const tracked = open.get(req.socket);
    if (!tracked) return; // already evicted or closed
    tracked.req = req;
    tracked.res = res;
    tracked.at = ++tick; // the most recently active
  });
  // accept() fails at the open-files limit (EMFILE); without a listener that 'error' ends the process.
  // Errors of listen() itself are left to whoever listens.
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (err.syscall === 'accept') log('error', `HTTP listener: ${err.message}`);
  });
  server.once('close', () => {
    if (reportTimer) clearTimeout(reportTimer);
  });
  return () => ({ open: open.size, ...stats });
}
