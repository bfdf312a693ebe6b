// Replaying a trace again against the same service: its device is there already. It is played as
// again when it fits (an external device of the trace's model, in the account asked for) and its MQTT
// password is known (given, or remembered by known-devices.ts); anything else is a clear error, never
// a 409 and never a device quietly moved to another account.

import { knownDevice } from './known-devices.ts';
import { simCall, TargetError } from './sim-call.ts';
import type { DeviceRequest, ProvisionedDevice, Target } from './target.ts';

export interface ExistingDevice {
  device_id: string;
  external: boolean;
  account_id?: number;
  space_id?: number | null;
  model?: string;
}

/** The service's device of that id, or undefined when it has none. */
export async function existingDevice(target: Target, deviceId: string): Promise<ExistingDevice | undefined> {
  try {
    return await simCall<ExistingDevice>(target, 'GET', `/devices/${encodeURIComponent(deviceId)}`);
  } catch (err) {
    if (err instanceof TargetError && err.status === 404) return undefined;
    throw err;
  }
}

export async function reuseDevice(
  target: Target,
  req: DeviceRequest,
  existing: ExistingDevice,
): Promise<ProvisionedDevice> {
  const id = existing.device_id;
  const where = target.identity ?? target.httpUrl;
  const refuse = (why: string, fix = 'pass --device <another id>') =>
    new TargetError(`device ${id} is already on ${where}, ${why}: ${fix}`);
  if (!existing.external) throw refuse('as a virtual meter of the service, not one a replay can play');
  if (existing.model !== req.model)
    throw refuse(`as a ${existing.model} meter, and the trace is ${req.model}`);
  if (req.accountId !== undefined && existing.account_id !== req.accountId)
    throw refuse(`in account ${existing.account_id}, not ${req.accountId}`);
  if (req.spaceId !== undefined && existing.space_id !== req.spaceId)
    throw refuse(`in space ${existing.space_id}, not ${req.spaceId}`);
  const known =
    req.knownDevices && target.identity
      ? await knownDevice(req.knownDevices, target.identity, id)
      : undefined;
  // What is remembered is of an earlier device of that id when the account differs: not this one.
  const mine = known && known.accountId === existing.account_id ? known : undefined;
  const password = req.mqttPassword ?? mine?.password;
  if (password === undefined)
    throw refuse(
      `and its MQTT password is not known here${known && !mine ? ' (the one remembered is of an earlier device of that id)' : ''}`,
      'pass its --mqtt-password, or --device <another id>',
    );
  return {
    deviceId: id,
    accountId: existing.account_id ?? null,
    spaceId: existing.space_id ?? null,
    mqttUrl: target.mqttUrl ?? mine?.mqttUrl ?? '',
    password,
    apiKey: req.apiKey ?? mine?.apiKey ?? null,
    created: false,
  };
}
