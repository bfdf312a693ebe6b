// Virtual meters' lifecycle over the core: started with their login, connected or unplugged on
// request, and waited for until the service has stored what they published. Used by provision.ts,
// replace.ts, restore.ts and the facade.

import type { MeterState } from '../../simulator/meter/types.ts';
import { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { WorldCore } from './core.ts';
import { WorldError } from './types.ts';

export async function startMeter(
  core: WorldCore,
  state: MeterState,
  secret: string,
  ledgerSeq: number,
  pk: number,
  online: boolean,
): Promise<VirtualMeter> {
  const meter = new VirtualMeter({
    state,
    now: () => core.clock.now(),
    mqttUrl: core.mqttUrl,
    password: secret,
    online,
    log: core.opts.log,
    onChanged: (m) => core.saver.markChanged(m.id),
    persist: (m) => core.saver.saveOne(m.id),
  });
  core.index.meta.set(state.deviceId, { secret, ledgerSeq, pk });
  await core.fleet.add(meter);
  return meter;
}

/** Returns once the service sees a just-started meter as online, readings at once, if it is online. */
export async function seen(core: WorldCore, meter: VirtualMeter): Promise<void> {
  if (!meter.online) return;
  await core.twins.waitForAvailability(meter.id, true);
  await stored(core, meter, Date.now() + 5_000); // its connect sample [MC-6.7]
}

/** Really connects or disconnects a virtual meter, and waits until the service has seen it. */
export async function setOnline(core: WorldCore, deviceId: string, online: boolean): Promise<void> {
  const meter = core.fleet.get(deviceId);
  if (!meter) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
  // Unplugged through /sim/v1: its goodbye says `bye`, but the reason a person wants is this one.
  if (!online) core.twins.expectOffline(deviceId, 'unplugged');
  await meter.setOnline(online);
  core.saver.markChanged(deviceId);
  await core.twins.waitForAvailability(deviceId, online);
  if (online) await stored(core, meter, Date.now() + 5_000); // its connect sample [MC-6.7]
}

/** Waits until every sample the online virtual meters produced so far is stored. */
export async function settle(core: WorldCore, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await core.fleet.drained();
  for (const meter of core.fleet.meters()) await stored(core, meter, deadline);
  await core.twins.settled();
  await core.writer.flush();
}

/** Waits (until `deadline`, wall ms) until the service has stored every sample a connected meter published. */
async function stored(core: WorldCore, meter: VirtualMeter, deadline: number): Promise<void> {
  if (!meter.connected) return;
  // A sample refused as stamped in the future (a meter clock ahead, issue 12) will never be stored.
  const handled = () => {
    const twin = core.twins.get(meter.id);
    return twin ? Math.max(twin.lastSampleTs, twin.lastFutureTs) : 0;
  };
  while (handled() < meter.lastSampleTs && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 2));
  }
}
