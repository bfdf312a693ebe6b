// POST /sim/v1/devices/{device_id}/replace (issue 12 §3): a new physical meter behind the same device
// id (src/world/replace.ts). Like every virtual meter route, an external, worker-hosted or backfilling
// device answers 409 (the caller's `virtualMeter` decides).

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SERIAL_PATTERN } from '../../../../firmware-protocol/mqtt/schemas.ts';
import { success } from '../../../http/envelope.ts';
import { ApiError } from '../../../http/errors.ts';
import { simDoc } from '../../docs.ts';
import { deviceIdParams } from '../../schemas.ts';
import { mapWorldError } from '../../world-errors.ts';
import type { SimContext } from '../context.ts';

export const replaceBody = z
  .strictObject({
    /** [MC-4.5] 1..64 printable ASCII characters; default: a fresh one. */
    serial: z.string().regex(SERIAL_PATTERN, 'serial: 1 to 64 printable ASCII characters').optional(),
    /** Default true: the balance moves to the new meter; false: refunded through the ledger. */
    keep_balance: z.boolean().optional(),
  })
  .optional();

export async function replaceRoutes(
  app: FastifyInstance,
  opts: Pick<SimContext, 'world' | 'virtualMeter'>,
): Promise<void> {
  const { world } = opts;
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/devices/:device_id/replace',
      { schema: { ...simDoc('replaceDevice'), params: deviceIdParams, body: replaceBody } },
      async (req) => {
        const meter = await opts.virtualMeter(req.params.device_id);
        const serial = req.body?.serial;
        if (serial !== undefined && serial === meter.state.serial) {
          throw ApiError.validation([
            {
              loc: ['serial'],
              msg: `${serial} is the present meter's serial: a new meter has a new one`,
            },
          ]);
        }
        const result = await world
          .replaceMeter(meter.id, { serial, keepBalance: req.body?.keep_balance })
          .catch(mapWorldError);
        return success(world.clock.now(), result, 'meter replaced');
      },
    );
}
