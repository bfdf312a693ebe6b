// Where a replay plays: a running meterstack (its URL and admin token) or one started in this process.
// Either way the replay's device is provisioned through /sim/v1 as an `external` device, so the
// service sees it exactly as a real meter (only its MQTT credentials are made there).

import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { MeterModel } from '../../../firmware-protocol/mqtt/vocabulary.ts';
import { type RunningService, startService } from '../../service.ts';
import { rememberDevice } from './known-devices.ts';
import { existingDevice, reuseDevice } from './reuse.ts';
import { simCall } from './sim-call.ts';

export interface Target {
  httpUrl: string;
  adminToken: string;
  /**
   * Which service this is, the same from run to run (its URL; an embedded one's database file), for
   * known-devices.ts; null or unset: nothing to remember (an embedded in-memory service).
   */
  identity?: string | null;
  /** Its broker, when known without asking (an embedded service). */
  mqttUrl?: string;
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
  return {
    svc,
    httpUrl: svc.httpUrl,
    adminToken: svc.adminToken,
    identity: opts.db === ':memory:' ? null : `db:${resolve(opts.db)}`,
    mqttUrl: svc.mqttUrl,
    close: () => svc.close(),
  };
}

export { simCall, TargetError } from './sim-call.ts';

export interface DeviceRequest {
  deviceId?: string;
  model: MeterModel;
  accountId?: number;
  spaceId?: number;
  /** The MQTT password of an existing device to reuse. */
  mqttPassword?: string;
  apiKey?: string;
  /** Where the devices made here are remembered (known-devices.ts); unset: nowhere. */
  knownDevices?: string;
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

/**
 * Makes the external device the replay will be, or reuses it when the service has it already and it
 * fits (reuse.ts): a trace replayed again plays as the same device, not a 409.
 */
export async function provisionDevice(target: Target, req: DeviceRequest): Promise<ProvisionedDevice> {
  if (req.deviceId) {
    const existing = await existingDevice(target, req.deviceId);
    if (existing) return reuseDevice(target, req, existing);
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
  const made = {
    deviceId: d.device_id,
    accountId,
    spaceId,
    mqttUrl: d.mqtt.url,
    password: d.mqtt.password,
    apiKey,
    created: true,
  };
  if (req.knownDevices && target.identity)
    await rememberDevice(req.knownDevices, target.identity, made.deviceId, made);
  return made;
}
