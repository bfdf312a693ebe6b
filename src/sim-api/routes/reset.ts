// POST /sim/v1/reset (spec-decisions 113): every account, key, space, device, meter, ledger entry and
// reading goes; the clock stays (src/world/world-snapshots.ts). A world route an API instance forwards.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../http/envelope.ts';
import { simDoc } from '../docs.ts';
import { mapWorldError } from '../world-errors.ts';
import type { SimContext } from './context.ts';
import { snapshotDesk } from './snapshots.ts';

export async function resetRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().post('/reset', { schema: simDoc('resetWorld') }, async () => {
    const { devices } = await snapshotDesk(world).reset().catch(mapWorldError);
    return success(now(), { devices_removed: devices }, 'world reset');
  });
}
