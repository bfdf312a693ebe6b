// `meterstack fleet --metrics-port` (PM-8): a real FleetWorker registered with a running service, its
// GET /metrics on a listener of its own: meters hosted and connected, the lease, the clock; the admin
// token as a bearer token, or none with --metrics-public; anything else refused in the envelope.

import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveWorkerMetrics } from '../../src/fleet-worker/metrics.ts';
import { FleetWorker } from '../../src/fleet-worker/worker.ts';
import { ADMIN_TOKEN, newAccount, startTestService, type TestService } from '../helpers/service.ts';
import { sampleValue } from './prom-text.ts';

let t: TestService;
let worker: FleetWorker;
let guarded: { server: Server; url: string };
let open: { server: Server; url: string };

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  const { account_id } = await newAccount(t.sim, 'wm');
  worker = new FleetWorker({
    url: t.svc.httpUrl,
    adminToken: ADMIN_TOKEN,
    name: 'wm',
    prefix: 'WM',
    count: 3,
    model: 'basic',
    profile: { kind: 'constant', watts: 100 },
    accountId: account_id,
    pid: process.pid,
    host: 'test',
    log: () => {},
  });
  await worker.start();
  const stats = () => worker.stats();
  guarded = await serveWorkerMetrics({
    host: '127.0.0.1',
    port: 0,
    adminToken: ADMIN_TOKEN,
    public: false,
    stats,
  });
  open = await serveWorkerMetrics({
    host: '127.0.0.1',
    port: 0,
    adminToken: ADMIN_TOKEN,
    public: true,
    stats,
  });
});
afterAll(async () => {
  guarded?.server.close();
  open?.server.close();
  await worker?.stop();
  await t?.close();
});

describe('a fleet worker’s GET /metrics [PM-8]', () => {
  it('shows its meters, its lease and its clock to the admin token as a bearer token', async () => {
    const res = await fetch(guarded.url, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sampleValue(text, 'meterstack_worker_meters')).toBe(3);
    expect(sampleValue(text, 'meterstack_worker_lease_held')).toBe(1);
    expect(sampleValue(text, 'meterstack_clock_speed')).toBe(0);
    expect(sampleValue(text, 'meterstack_worker_meters_connected')).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^process_resident_memory_bytes /m);
    // The world's side sees the worker too.
    const world = await (
      await fetch(`${t.svc.httpUrl}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text();
    expect(sampleValue(world, 'meterstack_fleet_workers', { state: 'alive' })).toBe(1);
    expect(sampleValue(world, 'meterstack_fleet_worker_meters', { worker: 'wm' })).toBe(3);
  });

  it('refuses a missing or wrong token, other paths and methods, in the envelope; --metrics-public needs none', async () => {
    const tries: Record<string, string>[] = [
      {},
      { authorization: 'Bearer nope' },
      { authorization: ADMIN_TOKEN },
    ];
    for (const headers of tries) {
      const res = await fetch(guarded.url, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({
        success: false,
        error: { code: 'admin_authentication_error' },
      });
    }
    expect((await fetch(guarded.url.replace('/metrics', '/other'))).status).toBe(404);
    expect((await fetch(guarded.url, { method: 'POST' })).status).toBe(405);
    expect((await fetch(open.url)).status).toBe(200);
  });
});
