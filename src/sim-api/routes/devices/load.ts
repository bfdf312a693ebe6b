// POST /sim/v1/devices/{device_id}/load: what a virtual meter's household draws from now on.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../../http/envelope.ts';
import { simDoc } from '../../docs.ts';
import * as s from '../../schemas.ts';
import type { SimContext } from '../context.ts';

export async function loadRoutes(app: FastifyInstance, { now, virtualMeter }: SimContext): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/devices/:device_id/load',
      { schema: { ...simDoc('setDeviceLoad'), params: s.deviceIdParams, body: s.loadBody } },
      async (req) => {
        const meter = await virtualMeter(req.params.device_id);
        const b = req.body;
        meter.setLoad(
          b.profile === 'household'
            ? { kind: 'household', seed: meter.state.seed, peakWatts: b.watts }
            : { kind: 'constant', watts: b.watts, powerFactor: b.power_factor },
        );
        return success(now(), { load: meter.state.load }, 'load set');
      },
    );
}
