// DELETE /sim/v1/keys/{api_key}: revokes an API key at once.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../http/envelope.ts';
import { ApiError } from '../../http/errors.ts';
import { simDoc } from '../docs.ts';
import * as s from '../schemas.ts';
import type { SimContext } from './context.ts';

export async function keyRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .delete(
      '/keys/:api_key',
      { schema: { ...simDoc('revokeApiKey'), params: s.apiKeyParams } },
      async (req) => {
        if (!(await world.store.revokeApiKey(req.params.api_key, now())))
          throw new ApiError('not_found', 'no such API key');
        return success(now(), true, 'key revoked');
      },
    );
}
