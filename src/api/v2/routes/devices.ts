// Endpoints 4–6: the device record, its live flattened metrics, and its metadata.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { decodeReplyData } from '../../../../firmware-protocol/mqtt/codec.ts';
import { MAX_FUTURE_SKEW_MS } from '../../../devices/plausibility.ts';
import { success } from '../../../http/envelope.ts';
import { ApiError } from '../../../http/errors.ts';
import { andThen, ownDevice, ownDeviceNow } from '../access.ts';
import type { V2Options } from '../context.ts';
import * as ex from '../examples.ts';
import { operate } from '../operate.ts';
import * as R from '../responses.ts';
import { BODY, COMMAND, DEVICE, responses } from '../responses.ts';
import { deviceParams, metadataBody } from '../schemas.ts';
import { deviceView, type LatestSample, latestOf } from '../views.ts';

export async function deviceRoutes(app: FastifyInstance, { world }: V2Options): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store, twins } = world;
  const now = () => world.clock.now();
  const tags = ['devices'];
  const security = [{ apiKey: [] }];

  r.get(
    '/devices/:device_id/',
    {
      schema: {
        tags,
        security,
        operationId: 'getDevice',
        summary: '4. Get a device with its current readings',
        description:
          'The full device record. `readings` are the newest the meter reported; they are kept while it is offline.',
        response: responses({ data: R.device, example: ex.deviceExample, errors: DEVICE }),
        params: deviceParams,
      },
    },
    // No promise while the store and the twin answer at once (issue 19 step 7): a sync answer.
    (req) =>
      andThen(ownDeviceNow(store, req.account, req.params.device_id), (device) =>
        // ownDevice guarantees a space of the same account
        andThen(store.getSpaceNow(device.spaceId!), (space) => {
          const twin = twins.get(device.deviceId);
          // The twin's newest reading is fresher; the store answers until the meter has published one.
          // Never a sample beyond the plausible window [MC-3.10] (stored before it was checked).
          if (twin?.latest) return success(now(), deviceView(device, space!, twin, latestOf(twin, null)));
          return store
            .latestSample(device.pk, now() + MAX_FUTURE_SKEW_MS)
            .then((sample) =>
              success(now(), deviceView(device, space!, twin, latestOf(twin, sample as LatestSample | null))),
            );
        }),
      ),
  );

  r.get(
    '/devices/:device_id/metrics',
    {
      schema: {
        tags,
        security,
        operationId: 'getDeviceMetrics',
        summary: '5. Read the current metrics live from the meter',
        description:
          'Asks the meter itself: it must be online (`device_offline`); a read that gets no answer in time is `properties_unreadable`.',
        response: responses({
          data: R.metrics,
          example: ex.metricsExample,
          errors: [...DEVICE, ...COMMAND, 'properties_unreadable'],
        }),
        params: deviceParams,
      },
    },
    async (req) => {
      const device = await ownDevice(store, req.account, req.params.device_id);
      const data = await operate(
        twins,
        device.deviceId,
        { op: 'read' },
        { offline: 'device_offline', timeout: 'properties_unreadable' },
      ).catch(propertiesUnreadable);
      const read = decodeReplyData('read', data);
      if (!read.ok)
        throw new ApiError('properties_unreadable', `Device properties unreadable: ${read.error.message}`);
      const { readings, state } = read.value;
      return success(now(), {
        device_id: device.deviceId,
        eb_tariff: state.eb_tariff,
        dg_tariff: state.dg_tariff,
        active_tariff: state.active_tariff,
        energy: readings.energy,
        active_power: readings.active_power,
        voltage: readings.voltage,
        balance: state.balance,
        relay_state: state.relay_state,
        mode: state.mode.toUpperCase() as Uppercase<typeof state.mode>,
        pg_enabled: state.pg_enabled,
      });
    },
  );

  r.put(
    '/devices/:device_id/',
    {
      schema: {
        tags,
        security,
        operationId: 'updateDevice',
        summary: '6. Update device metadata',
        description: 'Sets any of name, description, udf1; other fields are ignored.',
        response: responses({
          data: R.done,
          example: true,
          message: 'device updated',
          errors: [...DEVICE, ...BODY],
        }),
        params: deviceParams,
        body: metadataBody,
      },
    },
    async (req) => {
      const device = await ownDevice(store, req.account, req.params.device_id);
      const { name, description, udf1 } = req.body;
      await store.updateDevice(device.deviceId, { name, description, udf1 });
      return success(now(), true, 'device updated');
    },
  );
}

/** A read that timed out: the spec's detail says "properties unreadable", then why. */
function propertiesUnreadable(err: unknown): never {
  if (err instanceof ApiError && err.code === 'properties_unreadable') {
    throw new ApiError('properties_unreadable', `Device properties unreadable: ${err.detail}`);
  }
  throw err;
}
