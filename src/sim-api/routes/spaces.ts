// POST /sim/v1/spaces: a space in an account, where devices are placed.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../http/envelope.ts';
import { simDoc } from '../docs.ts';
import * as s from '../schemas.ts';
import { spaceView } from '../views.ts';
import { mapWorldError } from '../world-errors.ts';
import type { SimContext } from './context.ts';

export async function spaceRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post('/spaces', { schema: { ...simDoc('createSpace'), body: s.spaceBody } }, async (req) => {
      const b = req.body;
      const space = await world.createSpace({ ...b, accountId: b.account_id }).catch(mapWorldError);
      return success(now(), { ...spaceView(space), account_id: space.accountId }, 'space created');
    });
}
