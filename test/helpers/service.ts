// A real meterstack started in-process for a test: its own temp SQLite file, ephemeral ports, no demo
// world, no rate limit, and a log that collects lines instead of printing them. Talk to it with
// `sim()` (real HTTP through fetch) and real MQTT clients.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceExtensions } from '../../src/extensions/index.ts';
import { type RunningService, type ServiceConfig, startService } from '../../src/service.ts';

export const ADMIN_TOKEN = 'test-admin-token';

export interface TestService {
  svc: RunningService;
  /** The SQLite file of this service. */
  db: string;
  /** Every line the service logged, as `level msg`. */
  logs: string[];
  sim: Sim;
  close(): Promise<void>;
}

export interface SimResponse<T = Record<string, unknown>> {
  status: number;
  body: { success: boolean; data: T; message?: string; error?: { code: string; detail: unknown } };
}

/** An HTTP call to /sim/v1 (or any path starting with '/'), with the admin token unless told otherwise. */
export type Sim = <T = Record<string, unknown>>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  opts?: { token?: string | null },
) => Promise<SimResponse<T>>;

/** A fresh temp directory; removed by the returned function. */
export function tempDir(prefix = 'meterstack-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `path` is taken under /sim/v1 unless it is absolute to the server (starts with /sim/ or /healthz). */
export function simClient(baseUrl: string, adminToken = ADMIN_TOKEN): Sim {
  return async function sim<T>(
    method: string,
    path: string,
    body?: unknown,
    opts: { token?: string | null } = {},
  ): Promise<SimResponse<T>> {
    const token = opts.token === undefined ? adminToken : opts.token;
    const headers: Record<string, string> = {};
    if (token !== null) headers['x-admin-token'] = token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = /^\/(sim\/|healthz)/.test(path) ? path : `/sim/v1${path}`;
    const res = await fetch(`${baseUrl}${url}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as SimResponse<T>['body'] };
  };
}

/** Starts a service on a fresh database file (or `db`, to reopen one). */
export async function startTestService(overrides: Partial<ServiceConfig> = {}): Promise<TestService> {
  const tmp = overrides.db === undefined ? tempDir() : null;
  const db = overrides.db ?? join(tmp!.dir, 'meterstack.db');
  const logs: string[] = [];
  const svc = await startService({
    host: '127.0.0.1',
    httpPort: 0,
    mqttPort: 0,
    db,
    adminToken: ADMIN_TOKEN,
    apiKey: 'msk_test',
    speed: 1,
    demo: false,
    strictPort: false,
    rateLimit: 0,
    commandTimeoutMs: 2_000,
    log: (level, msg) => logs.push(`${level} ${msg}`),
    extensions: new ServiceExtensions().list,
    ...overrides,
  });
  return {
    svc,
    db,
    logs,
    sim: simClient(svc.httpUrl),
    async close() {
      await svc.close();
      tmp?.remove();
    },
  };
}

/** Checks a /sim/v1 answer is a success envelope with the expected status and returns its data. */
export function ok<T>(res: SimResponse<T>, status = 200): T {
  if (res.status !== status || !res.body.success) {
    throw new Error(`expected ${status} success, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res.body.data;
}

export interface Provisioned {
  device_id: string;
  mqtt: { url: string; username: string; password: string };
}

/** Creates an account through /sim/v1; returns its id and API key. */
export async function newAccount(sim: Sim, name = 'test'): Promise<{ account_id: number; api_key: string }> {
  return ok(await sim<{ account_id: number; api_key: string }>('POST', '/accounts', { name }));
}

/** Provisions a device through /sim/v1 (201). */
export async function provision(sim: Sim, body: Record<string, unknown>): Promise<Provisioned> {
  return ok(await sim<Provisioned>('POST', '/devices', body), 201);
}

/**
 * Moves a frozen world (speed 0) forward to the next 12:00 IST. The world starts at wall time, so a
 * test that backfills whole IST days and then lives a little longer would see its samples straddle an
 * IST midnight when CI happens to run near one (18:30 UTC); from noon it never does.
 */
export async function worldToNoonIst(sim: Sim): Promise<number> {
  const DAY = 86_400_000;
  const IST = 19_800_000; // +05:30, no daylight saving
  const now = ok(await sim<{ now_ms: number }>('GET', '/clock')).now_ms;
  const sinceNoon = (((now + IST - DAY / 2) % DAY) + DAY) % DAY;
  const seconds = Math.floor(((DAY - sinceNoon) % DAY) / 1000);
  if (seconds > 0) ok(await sim('POST', '/clock/advance', { seconds }));
  return ok(await sim<{ now_ms: number }>('GET', '/clock')).now_ms;
}
