// Where a replay plays: a running meterstack (its URL and admin token) or one started in this process.
// Either way the replay's device is provisioned through /sim/v1 as an `external` device, so the
// service sees it exactly as a real meter (only its MQTT credentials are made there).

import { randomBytes } from 'node:crypto';
import type { MeterModel } from '../../../simulator/meter/types.ts';
import { type RunningService, startService } from '../../service.ts';

export interface Target {
  httpUrl: string;
  adminToken: string;
  /** Stops an embedded service; nothing for a remote one. */
  close(): Promise<void>;
}

export interface EmbeddedOptions {
  db: string;
  httpPort?: number;
  mqttPort?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

export async function embeddedTarget(opts: EmbeddedOptions): Promise<Target & { svc: RunningService }> {
  const svc = await startService({
    host: '127.0.0.1',
    httpPort: opts.httpPort ?? 0,
    mqttPort: opts.mqttPort ?? 0,
    db: opts.db,
    adminToken: randomBytes(18).toString('base64url'),
    apiKey: `msk_${randomBytes(18).toString('base64url')}`,
    speed: 1,
    demo: false,
    strictPort: false,
    rateLimit: 0,
    commandTimeoutMs: 5000,
    log: opts.log ?? (() => {}),
  });
  return { svc, httpUrl: svc.httpUrl, adminToken: svc.adminToken, close: () => svc.close() };
}

export class TargetError extends Error {}

interface Envelope<T> {
  success: boolean;
  data: T;
  error?: { code: string; detail: unknown };
}

/** One /sim/v1 call; throws a TargetError with the service's error code and detail. */
export async function simCall<T>(target: Target, method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${target.httpUrl}/sim/v1${path}`, {
      method,
      headers: {
        'x-admin-token': target.adminToken,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new TargetError(`cannot reach ${target.httpUrl}: ${(err as Error).message}`);
  }
  const env = (await res.json().catch(() => null)) as Envelope<T> | null;
  if (!env?.success) {
    const e = env?.error;
    throw new TargetError(
      `${method} /sim/v1${path}: ${res.status} ${e ? `${e.code}: ${JSON.stringify(e.detail)}` : ''}`,
    );
  }
  return env.data;
}

export interface DeviceRequest {
  deviceId?: string;
  model: MeterModel;
  accountId?: number;
  spaceId?: number;
  /** The MQTT password of an existing device to reuse. */
  mqttPassword?: string;
  apiKey?: string;
}

export interface ProvisionedDevice {
  deviceId: string;
  accountId: number | null;
  spaceId: number | null;
  mqttUrl: string;
  password: string;
  /** A v2 key of the device's account, when known (made here, or given). */
  apiKey: string | null;
  created: boolean;
}

/** Makes (or reuses, given its password) the external device the replay will be. */
export async function provisionDevice(target: Target, req: DeviceRequest): Promise<ProvisionedDevice> {
  if (req.deviceId && req.mqttPassword) {
    return {
      deviceId: req.deviceId,
      accountId: req.accountId ?? null,
      spaceId: req.spaceId ?? null,
      mqttUrl: '', // not told by /sim/v1 for an existing device: the caller's --mqtt-url
      password: req.mqttPassword,
      apiKey: req.apiKey ?? null,
      created: false,
    };
  }
  let accountId = req.accountId;
  let apiKey = req.apiKey ?? null;
  if (accountId === undefined) {
    const a = await simCall<{ account_id: number; api_key: string }>(target, 'POST', '/accounts', {
      name: 'replay',
    });
    accountId = a.account_id;
    apiKey = a.api_key;
  }
  let spaceId = req.spaceId;
  if (spaceId === undefined) {
    const s = await simCall<{ space_id: number }>(target, 'POST', '/spaces', {
      account_id: accountId,
      name: 'Replay',
    });
    spaceId = s.space_id;
  }
  const d = await simCall<{ device_id: string; mqtt: { url: string; password: string } }>(
    target,
    'POST',
    '/devices',
    {
      account_id: accountId,
      space_id: spaceId,
      model: req.model,
      external: true,
      ...(req.deviceId && { device_id: req.deviceId }),
    },
  );
  return {
    deviceId: d.device_id,
    accountId,
    spaceId,
    mqttUrl: d.mqtt.url,
    password: d.mqtt.password,
    apiKey,
    created: true,
  };
}
