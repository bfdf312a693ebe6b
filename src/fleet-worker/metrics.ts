// `meterstack fleet --metrics-port N` (issue 22 §1, PM-8): the worker's own GET /metrics on a listener of
// its own, for Prometheus to scrape beside the service: its meters (hosted, connected), its lease
// (heartbeats, the age of the last one answered, held or not), its virtual clock and the process's
// metrics. Guarded by the admin token as a bearer token (the token the worker already holds), or open
// with --metrics-public. A prom-client registry of its own: the worker has no service registry.

import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { WorkerStats } from './worker.ts';

export interface WorkerMetricsOptions {
  host: string;
  port: number;
  adminToken: string;
  public: boolean;
  stats: () => WorkerStats;
}

export function workerRegistry(stats: () => WorkerStats): Registry {
  const registry = new Registry();
  const gauge = (name: string, help: string, read: (s: WorkerStats) => number | null) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const v = read(stats());
        if (v !== null) this.set(v);
      },
    });
  gauge('meterstack_worker_meters', 'Meters this fleet worker hosts', (s) => s.meters);
  gauge(
    'meterstack_worker_meters_connected',
    "This worker's meters connected to the broker now",
    (s) => s.connected,
  );
  gauge('meterstack_worker_heartbeats', 'Heartbeats this worker sent since it started', (s) => s.beats);
  gauge(
    'meterstack_worker_heartbeat_age_seconds',
    'Seconds since the service last answered a heartbeat (the lease ends past 30 s)',
    (s) => s.lastBeatAgeS,
  );
  gauge('meterstack_worker_lease_held', '1 while this worker holds its lease, else 0', (s) =>
    s.leaseHeld ? 1 : 0,
  );
  gauge('meterstack_clock_virtual_seconds', "The worker's virtual time, seconds since the epoch", (s) =>
    s.clockMs === null ? null : Math.floor(s.clockMs / 1000),
  );
  gauge('meterstack_clock_speed', 'Virtual ms per wall ms', (s) => s.speed);
  // A worker is a process of its own: the default set once, on its one registry.
  collectDefaultMetrics({ register: registry });
  return registry;
}

function matches(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function answerError(res: ServerResponse, status: number, code: string, detail: string): void {
  // The service's envelope shape; the worker keeps no clock zone of its own, so UTC.
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    ...(status === 401 ? { 'www-authenticate': 'Bearer realm="meterstack fleet worker"' } : {}),
  });
  res.end(
    JSON.stringify({
      success: false,
      error: { code, detail },
      message: detail,
      timestamp: new Date().toISOString(),
    }),
  );
}

/** Listens on `host:port` (0: any free port); resolves with the server and its URL. */
export async function serveWorkerMetrics(o: WorkerMetricsOptions): Promise<{ server: Server; url: string }> {
  const registry = workerRegistry(o.stats);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics')
      return answerError(res, 404, 'not_found', 'Not found: this listener serves GET /metrics only.');
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return answerError(res, 405, 'method_not_allowed', 'Method not allowed: GET /metrics.');
    if (!o.public) {
      const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
      const given = m?.[1] ?? req.headers['x-admin-token'];
      if (typeof given !== 'string' || !matches(given, o.adminToken))
        return answerError(
          res,
          401,
          'admin_authentication_error',
          "Send the service's admin token as a bearer token (Authorization: Bearer <token>), or start the worker with --metrics-public.",
        );
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: Error) => answerError(res, 500, 'internal_error', `metrics: ${err.message}`),
    );
  });
  // A scraper, not a browser: short timeouts, few connections.
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  server.maxConnections = 64;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const addr = server.address() as { port: number };
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  return { server, url: `http://${host}:${addr.port}/metrics` };
}
