// What every /sim/v1 route file is given (index.ts makes it once): the world, its clock reading, and
// the lookup every virtual meter route answers through.

import type { VirtualMeter } from '../../../simulator/virtual-meter.ts';
import { ApiError } from '../../http/errors.ts';
import type { ServiceWorld } from '../../world/face.ts';

export interface SimContext {
  world: ServiceWorld;
  now: () => number;
  /** The virtual meter of a device id, or the conflict / not_found every meter route answers. */
  virtualMeter: (id: string) => Promise<VirtualMeter>;
}

export function simContext(world: ServiceWorld): SimContext {
  return { world, now: () => world.clock.now(), virtualMeter: (id) => virtualMeter(world, id) };
}

/**
 * The virtual meter `id`. An external device exists but has no meter here: 409 `conflict` saying so
 * (spec-decisions 53); a device the world does not know: 404.
 */
async function virtualMeter(world: ServiceWorld, id: string): Promise<VirtualMeter> {
  const meter = world.meter(id);
  if (meter) return meter;
  const worker = world.workers?.hostOf(id);
  if (worker !== undefined) {
    throw new ApiError(
      'conflict',
      `virtual meter ${id} runs in fleet worker ${worker}: control it through the v2 API (see GET /sim/v1/workers)`,
    );
  }
  // Its history is still being written: the meter starts once that is done (spec decision 52).
  const b = world.backfills().find((p) => p.deviceId === id);
  if (b) {
    throw new ApiError(
      'conflict',
      `virtual meter ${id} is being backfilled: ${b.doneDays} of ${b.totalDays} days written; see GET /sim/v1/backfills`,
    );
  }
  if ((await world.store.getDevice(id))?.kind === 'external') {
    throw new ApiError(
      'conflict',
      `device ${id} is external: no virtual meter runs here to control (the meter itself connects over MQTT)`,
    );
  }
  throw new ApiError('not_found', `virtual meter ${id} not found`);
}
