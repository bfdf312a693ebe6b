// POST /sim/v1/devices/{device_id}/button: a press of the meter's button (held long: WiFi config mode).

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../../http/envelope.ts';
import { simDoc } from '../../docs.ts';
import * as s from '../../schemas.ts';
import type { SimContext } from '../context.ts';

export async function buttonRoutes(app: FastifyInstance, { now, virtualMeter }: SimContext): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      '/devices/:device_id/button',
      { schema: { ...simDoc('pressDeviceButton'), params: s.deviceIdParams, body: s.buttonBody } },
      async (req) => {
        const meter = await virtualMeter(req.params.device_id);
        meter.pressButton(req.body.hold_seconds);
        return success(now(), { config_mode: meter.state.wifi.configMode }, 'button pressed');
      },
    );
}
