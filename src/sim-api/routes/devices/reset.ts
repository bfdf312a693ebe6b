// POST /sim/v1/devices/{device_id}/reset (spec-decisions 116): one virtual meter back to how it started
// (src/world/world-snapshots.ts). A whole-world operation: a world route an API instance forwards.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../../http/envelope.ts';
import { ApiError } from '../../../http/errors.ts';
import { simDoc } from '../../docs.ts';
import { deviceIdParams as deviceParams } from '../../schemas.ts';
import { mapWorldError } from '../../world-errors.ts';
import type { SimContext } from '../context.ts';
import { snapshotDesk } from '../snapshots.ts';

export async function deviceResetRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/devices/:device_id/reset',
      { schema: { ...simDoc('resetDevice'), params: deviceParams } },
      async (req) => {
        const id = req.params.device_id;
        if (!world.meter(id) && (await world.store.getDevice(id))?.kind === 'external')
          throw new ApiError('conflict', `device ${id} is external: no virtual meter runs here to reset`);
        const { opening, adjustment } = await snapshotDesk(world).resetDevice(id).catch(mapWorldError);
        return success(now(), { device_id: id, balance: opening, adjustment }, 'meter reset');
      },
    );
}
