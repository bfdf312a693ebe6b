// Provisioning a device: checked against its account and space, stored with its MQTT login (derived
// for a virtual meter [SNAP-8], random and stored hashed for an external one), its history backfilled
// if asked, its opening balance in the ledger, and its virtual meter started and seen by the service.

import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { DeviceRecord } from '../store/types.ts';
import { know, type WorldCore } from './core.ts';
import { idle } from './exclusive.ts';
import { seen, startMeter } from './meters.ts';
import { newMeterPlan } from './new-meter.ts';
import { hashSecret, newToken } from './secrets.ts';
import { type NewDeviceInput, WorldError } from './types.ts';

/** Provisions a device and starts its virtual meter on the broker with its own credentials. */
export async function provisionDevice(
  core: WorldCore,
  input: NewDeviceInput,
): Promise<{ device: DeviceRecord; secret: string; meter: VirtualMeter | null }> {
  const { store } = core;
  idle(core, 'a device cannot be provisioned');
  if (!(await store.getAccount(input.accountId)))
    throw new WorldError('not_found', `account ${input.accountId} not found`);
  if (input.spaceId !== null) {
    const space = await store.getSpace(input.spaceId);
    if (!space || space.accountId !== input.accountId) {
      throw new WorldError('not_found', `space ${input.spaceId} not found in account ${input.accountId}`);
    }
  }
  const deviceId = input.deviceId ?? (await freshDeviceId(core));
  if (await store.getDevice(deviceId)) throw new WorldError('conflict', `device ${deviceId} already exists`);
  // [SNAP-8] A virtual meter's password is derived; an external device's is random, stored hashed.
  const secret = input.external ? newToken('mqs') : core.secrets.secretOf(deviceId);
  const now = core.clock.now();
  const device = await storeDevice(core, input, deviceId, secret, now);
  know(core, device);
  await core.opts.meterLogins?.addMeter(deviceId, secret);
  if (input.external) core.index.external.add(deviceId);
  if (input.external) return { device, secret, meter: null };
  const plan = newMeterPlan(input, deviceId, now);
  const state = plan.live(
    plan.days > 0
      ? await core.backfills.run(deviceId, {
          store,
          devicePk: device.pk,
          plan,
          to: now,
          stopReason: () =>
            core.gate.closed ? `backfill of ${deviceId} stopped: the service is stopping` : null,
        })
      : plan.initial,
  );
  const opening = await store.appendLedger({
    devicePk: device.pk,
    kind: 'opening',
    amount: input.balance ?? 0,
    transactionId: null,
    createdAt: now,
  });
  const meter = await startMeter(core, state, secret, opening.entry.seq, device.pk, input.online ?? true);
  // Only this meter and the clock: saving every meter per provision made provisioning a fleet quadratic
  // (10,000 meters: ~10,000 × 10,000 snapshot rows), as decision 268 did for commands.
  await core.saver.saveSome([deviceId]);
  // Return only once the service sees the meter as the caller asked for it, so the next call can use it.
  await seen(core, meter);
  return { device, secret, meter };
}

/** The device's row, its MQTT secret stored only hashed. */
function storeDevice(
  core: WorldCore,
  input: NewDeviceInput,
  deviceId: string,
  secret: string,
  now: number,
): Promise<DeviceRecord> {
  return core.store.createDevice(
    {
      deviceId,
      accountId: input.accountId,
      spaceId: input.spaceId,
      name: input.name ?? deviceId,
      description: input.description ?? '',
      model: input.model ?? 'basic',
      kind: input.external ? 'external' : 'virtual',
      mqttSecretHash: hashSecret(secret),
      udf1: input.udf1 ?? null,
      udf2: input.udf2 ?? null,
      udf3: input.udf3 ?? null,
      udf4: input.udf4 ?? null,
      udf5: input.udf5 ?? null,
    },
    now,
  );
}

async function freshDeviceId(core: WorldCore): Promise<string> {
  for (;;) {
    const id = `MTR${Math.floor(Math.random() * 1e8)
      .toString()
      .padStart(8, '0')}`;
    if (!(await core.store.getDevice(id))) return id;
  }
}
