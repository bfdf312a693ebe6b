// Endpoints 13–14: WiFi. The spec answers device_not_found when the network details cannot be had
// because the meter may be offline, so that is what an offline or silent meter gets here.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { decodeReplyData } from '../../../../firmware-protocol/mqtt/codec.ts';
import { success } from '../../../http/envelope.ts';
import { ApiError } from '../../../http/errors.ts';
import { ownDevice } from '../access.ts';
import type { V2Options } from '../context.ts';
import * as ex from '../examples.ts';
import { operate } from '../operate.ts';
import * as R from '../responses.ts';
import { BODY, DEVICE, responses } from '../responses.ts';
import { deviceParams, wifiBody } from '../schemas.ts';

const UNREACHABLE = { offline: 'device_not_found', timeout: 'device_not_found' } as const;

export async function wifiRoutes(app: FastifyInstance, { world }: V2Options): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store, twins } = world;
  const now = () => world.clock.now();
  const tags = ['wifi'];
  const security = [{ apiKey: [] }];

  r.get(
    '/devices/:device_id/wifi',
    {
      schema: {
        tags,
        security,
        operationId: 'getWifi',
        summary: '13. Read the WiFi status',
        description:
          'Asks the meter: `Primary`, or `Secondary` in configuration mode (spec §4). A meter that is offline or does not answer is `device_not_found` (spec §7).',
        response: responses({
          data: R.wifi,
          example: ex.wifiExample,
          errors: [...DEVICE, 'device_rejected'],
        }),
        params: deviceParams,
      },
    },
    async (req) => {
      const device = await ownDevice(store, req.account, req.params.device_id);
      const data = await operate(twins, device.deviceId, { op: 'get_wifi' }, UNREACHABLE).catch(
        networkDetailsMissing,
      );
      const wifi = decodeReplyData('get_wifi', data);
      if (!wifi.ok)
        throw new ApiError('device_not_found', `Network details unreadable: ${wifi.error.message}`);
      const { ssid, password, rssi, type } = wifi.value;
      return success(now(), { ssid, password, rssi, type });
    },
  );

  r.post(
    '/devices/:device_id/wifi',
    {
      schema: {
        tags,
        security,
        operationId: 'setWifi',
        summary: '14. Set the primary WiFi network (2.4 GHz)',
        description:
          'ssid at most 32 characters, password at most 64 (and as many bytes in UTF-8). An offline meter is `device_not_found` (spec §7).',
        response: responses({
          data: R.done,
          example: true,
          message: 'WiFi settings updated',
          errors: [...DEVICE, ...BODY, 'device_rejected'],
        }),
        params: deviceParams,
        body: wifiBody,
      },
    },
    async (req) => {
      const device = await ownDevice(store, req.account, req.params.device_id);
      const { ssid, password } = req.body;
      await operate(twins, device.deviceId, { op: 'set_wifi', ssid, password }, UNREACHABLE).catch(
        networkDetailsMissing,
      );
      return success(now(), true, 'WiFi settings updated');
    },
  );
}

function networkDetailsMissing(err: unknown): never {
  if (err instanceof ApiError && err.code === 'device_not_found') {
    throw new ApiError(
      'device_not_found',
      `Network details are missing: the device may be offline. ${err.detail}`,
    );
  }
  throw err;
}
