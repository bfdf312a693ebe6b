// POST /sim/v1/devices/{device_id}/online: really connects or unplugs a virtual meter.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../../http/envelope.ts';
import { simDoc } from '../../docs.ts';
import * as s from '../../schemas.ts';
import type { SimContext } from '../context.ts';

export async function onlineRoutes(
  app: FastifyInstance,
  { world, now, virtualMeter }: SimContext,
): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/devices/:device_id/online',
      { schema: { ...simDoc('setDeviceOnline'), params: s.deviceIdParams, body: s.onlineBody } },
      async (req) => {
        const meter = await virtualMeter(req.params.device_id);
        await world.setOnline(meter.id, req.body.online);
        return success(
          now(),
          { online: meter.online },
          req.body.online ? 'meter connected' : 'meter disconnected',
        );
      },
    );
}
