// GET /sim/v1/fleet: the fleet view's rows, every device with its account, space and what its twin
// last saw (fleet-rows.ts).

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../http/envelope.ts';
import { simDoc } from '../docs.ts';
import { fleetView } from '../fleet-rows.ts';
import type { SimContext } from './context.ts';

export async function fleetRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().get('/fleet', { schema: simDoc('getFleet') }, async () => {
    const plugged = (id: string) => world.meter(id)?.online;
    const mqttUrl = world.mqttUrl;
    return success(now(), await fleetView({ store: world.store, twins: world.twins, plugged, mqttUrl }));
  });
}
