// Endpoints 7–11 and 15: relay, mode, tariffs and payment gateway. Each needs the meter online and
// succeeds only once the meter itself has acknowledged the change.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { TwinCommand } from '../../../devices/types.ts';
import { success } from '../../../http/envelope.ts';
import { ownDevice } from '../access.ts';
import type { V2Options } from '../context.ts';
import { operate } from '../operate.ts';
import * as R from '../responses.ts';
import { BODY, COMMAND, DEVICE, responses } from '../responses.ts';
import { activeTariffBody, deviceParams, gatewayBody, modeBody, relayBody, tariffBody } from '../schemas.ts';

export async function controlRoutes(app: FastifyInstance, { world }: V2Options): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store, twins } = world;
  const now = () => world.clock.now();
  const tags = ['control'];
  const security = [{ apiKey: [] }];
  const control = (message: string) =>
    responses({ data: R.done, example: true, message, errors: [...DEVICE, ...BODY, ...COMMAND] });

  async function run(
    account: Parameters<typeof ownDevice>[1],
    deviceId: string,
    command: TwinCommand,
    message: string,
  ) {
    const device = await ownDevice(store, account, deviceId);
    await operate(twins, device.deviceId, command);
    return success(now(), true, message);
  }

  r.put(
    '/devices/:device_id/relay',
    {
      schema: {
        tags,
        security,
        operationId: 'setRelay',
        summary: '7. Switch the relay',
        description: 'Relay ON (`state` true) or OFF; the meter must be online and acknowledge it.',
        response: control('relay state updated'),
        params: deviceParams,
        body: relayBody,
      },
    },
    (req) =>
      run(req.account, req.params.device_id, { op: 'set_relay', on: req.body.state }, 'relay state updated'),
  );

  r.put(
    '/devices/:device_id/mode',
    {
      schema: {
        tags,
        security,
        operationId: 'setMode',
        summary: '8. Set the operating mode',
        description:
          'prepaid, postpaid, measurement or relay_off; the meter must be online and acknowledge it.',
        response: control('mode updated'),
        params: deviceParams,
        body: modeBody,
      },
    },
    (req) => run(req.account, req.params.device_id, { op: 'set_mode', mode: req.body.mode }, 'mode updated'),
  );

  r.put(
    '/devices/:device_id/tariffs/eb',
    {
      schema: {
        tags,
        security,
        operationId: 'setEbTariff',
        summary: '9. Set the EB tariff (paise per kWh)',
        description: 'Electricity Board tariff in paise per kWh (0 to 100000).',
        response: control('EB tariff updated'),
        params: deviceParams,
        body: tariffBody,
      },
    },
    (req) =>
      run(
        req.account,
        req.params.device_id,
        { op: 'set_tariff', slot: 'eb', paise: req.body.tariff },
        'EB tariff updated',
      ),
  );

  r.put(
    '/devices/:device_id/tariffs/dg',
    {
      schema: {
        tags,
        security,
        operationId: 'setDgTariff',
        summary: '10. Set the DG tariff (paise per kWh)',
        description: 'Diesel Generator tariff in paise per kWh (0 to 100000).',
        response: control('DG tariff updated'),
        params: deviceParams,
        body: tariffBody,
      },
    },
    (req) =>
      run(
        req.account,
        req.params.device_id,
        { op: 'set_tariff', slot: 'dg', paise: req.body.tariff },
        'DG tariff updated',
      ),
  );

  r.put(
    '/devices/:device_id/tariffs/active',
    {
      schema: {
        tags,
        security,
        operationId: 'setActiveTariff',
        summary: '11. Select the active tariff (1 = EB, 2 = DG)',
        description: 'The tariff used for billing from now on.',
        response: control('active tariff updated'),
        params: deviceParams,
        body: activeTariffBody,
      },
    },
    (req) =>
      run(
        req.account,
        req.params.device_id,
        { op: 'set_active_tariff', tariff: req.body.active_tariff },
        'active tariff updated',
      ),
  );

  r.put(
    '/devices/:device_id/payments/gateway',
    {
      schema: {
        tags,
        security,
        operationId: 'setPaymentGateway',
        summary: '15. Enable or disable the payment gateway',
        description: 'Sets `pg_enabled` on the meter.',
        response: control('payment gateway state updated'),
        params: deviceParams,
        body: gatewayBody,
      },
    },
    (req) =>
      run(
        req.account,
        req.params.device_id,
        { op: 'set_gateway', enabled: req.body.state },
        'payment gateway state updated',
      ),
  );
}
