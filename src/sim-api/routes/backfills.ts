// GET /sim/v1/backfills: the histories being written for new meters (spec decision 52).

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../http/envelope.ts';
import { simDoc } from '../docs.ts';
import type { SimContext } from './context.ts';

export async function backfillRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get('/backfills', { schema: simDoc('listBackfills') }, async () => {
    const list = world.backfills().map((b) => ({
      device_id: b.deviceId,
      done_days: b.doneDays,
      total_days: b.totalDays,
      samples: b.samples,
    }));
    return success(now(), list);
  });
}
