// POST /sim/v1/devices/{device_id}/recharge: money for any meter of the world, ledger first
// [LEDGER-1]: a fleet worker's (through its hub), an external one [LEDGER-4], or a virtual one here.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../../http/envelope.ts';
import { simDoc } from '../../docs.ts';
import { externalRechargeAnswer } from '../../external-recharge.ts';
import * as s from '../../schemas.ts';
import { mapWorldError } from '../../world-errors.ts';
import type { SimContext } from '../context.ts';

export async function rechargeRoutes(
  app: FastifyInstance,
  { world, now, virtualMeter }: SimContext,
): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/devices/:device_id/recharge',
      { schema: { ...simDoc('rechargeDevice'), params: s.deviceIdParams, body: s.rechargeBody } },
      async (req) => {
        const { device_id: id } = req.params;
        const { amount, transaction_id: transactionId } = req.body;
        if (world.workers?.hosts(id)) {
          const result = await world.workers.recharge(id, amount, transactionId).catch(mapWorldError);
          const msg = !result.applied
            ? 'recharge already applied'
            : result.delivered
              ? 'recharge applied'
              : 'recharge in the ledger; the meter is offline and takes it when its worker resumes it';
          return success(now(), result, msg);
        }
        const device = world.meter(id) ? null : await world.store.getDevice(id);
        if (device?.kind === 'external') {
          const r = await world.rechargeExternal(device, amount, transactionId).catch(mapWorldError);
          return success(now(), ...externalRechargeAnswer(device.deviceId, r));
        }
        await virtualMeter(id);
        const result = await world.recharge(id, amount, transactionId).catch(mapWorldError);
        return success(now(), result, result.applied ? 'recharge applied' : 'recharge already applied');
      },
    );
}
