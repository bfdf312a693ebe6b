// A small client for the v2 API over real HTTP, the spec's envelope checks, and a fixture that makes
// an account with a space and a virtual meter in it through /sim/v1.

import { expect } from 'vitest';
import { newAccount, ok, provision, type Sim } from './service.ts';

export type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

export interface V2Response<T = unknown> {
  status: number;
  headers: Headers;
  /** The parsed JSON body (the envelope), or the raw text when it is not JSON. */
  body: Envelope<T>;
}

export interface Envelope<T = unknown> {
  success: boolean;
  data?: T;
  error?: { code: string; detail: unknown };
  message?: string;
  timestamp: string;
}

export interface V2CallOptions {
  /** Sent as is instead of JSON.stringify(body): for malformed JSON. */
  raw?: string;
  /** Extra or replacing headers. */
  headers?: Record<string, string>;
}

/** Calls the v2 API (or any path starting with '/api/'); `key` null sends no X-Service-API-Key. */
export type V2 = <T = unknown>(
  method: Method,
  path: string,
  body?: unknown,
  key?: string | null,
  opts?: V2CallOptions,
) => Promise<V2Response<T>>;

export function v2Client(baseUrl: string, defaultKey: string | null = null): V2 {
  return async function v2<T>(
    method: Method,
    path: string,
    body?: unknown,
    key: string | null | undefined = defaultKey,
    opts: V2CallOptions = {},
  ): Promise<V2Response<T>> {
    const headers: Record<string, string> = {};
    if (key !== null && key !== undefined) headers['x-service-api-key'] = key;
    const payload = opts.raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (payload !== undefined) headers['content-type'] = 'application/json';
    Object.assign(headers, opts.headers);
    const url = path.startsWith('/api/') ? path : `/api/v2${path}`;
    const res = await fetch(`${baseUrl}${url}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: Envelope<T>;
    try {
      parsed = JSON.parse(text) as Envelope<T>;
    } catch {
      throw new Error(`${method} ${url}: ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

/** ISO 8601 with milliseconds in +05:30 (spec §1 and the envelope). */
export const IST_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+05:30$/;

/** Checks a success envelope (status 200 unless told; `message` when given) and returns its data. */
export function data<T>(res: V2Response<T>, message?: string, status = 200): T {
  if (res.status !== status || res.body.success !== true) {
    throw new Error(`expected ${status} success, got ${res.status}: ${JSON.stringify(res.body)}`);
  }
  const keys = Object.keys(res.body).filter((k) => k !== 'message');
  expect(keys.sort()).toEqual(['data', 'success', 'timestamp']);
  expect(res.body.timestamp).toMatch(IST_TIMESTAMP);
  if (message !== undefined) expect(res.body.message).toBe(message);
  return res.body.data as T;
}

/** Checks an error envelope with the given status and code and returns its detail. */
export function failed(res: V2Response, status: number, code: string): unknown {
  expect({ status: res.status, code: res.body.error?.code }, JSON.stringify(res.body)).toEqual({
    status,
    code,
  });
  expect(res.body.success).toBe(false);
  expect(res.body).not.toHaveProperty('data');
  expect(Object.keys(res.body.error!).sort()).toEqual(['code', 'detail']);
  expect(res.body.timestamp).toMatch(IST_TIMESTAMP);
  if (code === 'validation_error') {
    expect(Array.isArray(res.body.error!.detail)).toBe(true);
    for (const item of res.body.error!.detail as unknown[]) {
      expect(item).toEqual({ loc: expect.any(Array), msg: expect.any(String) });
    }
  } else {
    expect(typeof res.body.error!.detail).toBe('string');
  }
  return res.body.error!.detail;
}

/** The validation items of a 422, for `toContainEqual`. */
export function invalid(res: V2Response): { loc: string[]; msg: string }[] {
  return failed(res, 422, 'validation_error') as { loc: string[]; msg: string }[];
}

export interface Tenant {
  accountId: number;
  key: string;
  spaceId: number;
  deviceId: string;
  mqtt: { url: string; username: string; password: string };
}

/** An account with its key, one space and one virtual meter in it (more meter options in `device`). */
export async function tenant(sim: Sim, device: Record<string, unknown> = {}): Promise<Tenant> {
  const { account_id, api_key } = await newAccount(sim);
  const space = ok(await sim<{ space_id: number }>('POST', '/spaces', { account_id, name: 'Block A' }));
  const meter = await provision(sim, { account_id, space_id: space.space_id, ...device });
  return {
    accountId: account_id,
    key: api_key,
    spaceId: space.space_id,
    deviceId: meter.device_id,
    mqtt: meter.mqtt,
  };
}

/** The virtual meter's own view of itself (GET /sim/v1/devices/{id}). */
export interface MeterView {
  online: boolean;
  mode: string;
  relay_commanded: boolean;
  relay_state: boolean;
  eb_tariff: number;
  dg_tariff: number;
  active_tariff: number;
  balance: number;
  pg_enabled: boolean;
  balance_exact: { units: string; units_per_paise: string };
  energy_kwh: number;
  wifi: { ssid: string; password: string; rssi: number; config_mode: boolean };
}

export async function meterView(sim: Sim, deviceId: string): Promise<MeterView> {
  return ok(await sim<MeterView>('GET', `/devices/${deviceId}`));
}

/**
 * Every v2 operation with a body that passes validation, so a test can run the same check over all
 * fifteen. `dev` and `space` are filled in per test.
 */
export interface RouteCase {
  n: number;
  method: Method;
  path: (ids: { space: number; dev: string }) => string;
  body?: unknown;
  /** Which object the path names. */
  target: 'none' | 'space' | 'device';
}

export const HISTORY_QS = 'property_id=energy&from_date=2026-01-01&to_date=2026-01-02&interval=1d';

export const ROUTES: readonly RouteCase[] = [
  { n: 1, method: 'GET', path: () => '/spaces/', target: 'none' },
  { n: 2, method: 'GET', path: (i) => `/spaces/${i.space}/`, target: 'space' },
  { n: 3, method: 'PUT', path: (i) => `/spaces/${i.space}/`, body: { name: 'S' }, target: 'space' },
  { n: 4, method: 'GET', path: (i) => `/devices/${i.dev}/`, target: 'device' },
  { n: 5, method: 'GET', path: (i) => `/devices/${i.dev}/metrics`, target: 'device' },
  { n: 6, method: 'PUT', path: (i) => `/devices/${i.dev}/`, body: { name: 'D' }, target: 'device' },
  { n: 7, method: 'PUT', path: (i) => `/devices/${i.dev}/relay`, body: { state: true }, target: 'device' },
  {
    n: 8,
    method: 'PUT',
    path: (i) => `/devices/${i.dev}/mode`,
    body: { mode: 'postpaid' },
    target: 'device',
  },
  {
    n: 9,
    method: 'PUT',
    path: (i) => `/devices/${i.dev}/tariffs/eb`,
    body: { tariff: 800 },
    target: 'device',
  },
  {
    n: 10,
    method: 'PUT',
    path: (i) => `/devices/${i.dev}/tariffs/dg`,
    body: { tariff: 2000 },
    target: 'device',
  },
  {
    n: 11,
    method: 'PUT',
    path: (i) => `/devices/${i.dev}/tariffs/active`,
    body: { active_tariff: 2 },
    target: 'device',
  },
  { n: 12, method: 'GET', path: (i) => `/devices/${i.dev}/metrics/history?${HISTORY_QS}`, target: 'device' },
  { n: 13, method: 'GET', path: (i) => `/devices/${i.dev}/wifi`, target: 'device' },
  {
    n: 14,
    method: 'POST',
    path: (i) => `/devices/${i.dev}/wifi`,
    body: { ssid: 'Home', password: 'secret123' },
    target: 'device',
  },
  {
    n: 15,
    method: 'PUT',
    path: (i) => `/devices/${i.dev}/payments/gateway`,
    body: { state: true },
    target: 'device',
  },
];

// The spec's shapes (§2), as the tests read them.
type Udfs = Record<'udf1' | 'udf2' | 'udf3' | 'udf4' | 'udf5', string | null>;
export interface DeviceSummary extends Udfs {
  device_id: string;
  name: string;
  active_mode: string;
}
export interface Space extends Udfs {
  space_id: number;
  name: string;
  description: string;
  devices: DeviceSummary[];
  tags: unknown[];
}
export interface Reading {
  property_id: string;
  context_type: string;
  value: number;
  unit: string;
}
export interface Device extends Udfs {
  device_id: string;
  name: string;
  description: string;
  space: { id: number; name: string; description: string };
  public_access: boolean;
  public_hash: string | null;
  active_mode: string;
  balance: number;
  has_relay: boolean;
  is_online: boolean;
  is_shared: boolean;
  readings: Reading[];
  tags: unknown[];
}
export interface Metrics {
  device_id: string;
  eb_tariff: number;
  dg_tariff: number;
  active_tariff: number;
  energy: number;
  active_power: number;
  voltage: number;
  balance: number;
  relay_state: boolean;
  mode: string;
  pg_enabled: boolean;
}
export interface HistoricalReading {
  property_id: string;
  value: number;
  unit: string;
  timestamp: string;
}
export interface History {
  device_id: string;
  from_date: string;
  to_date: string;
  readings: HistoricalReading[];
}
export interface Wifi {
  ssid: string;
  password: string;
  rssi: number;
  type: string;
}
