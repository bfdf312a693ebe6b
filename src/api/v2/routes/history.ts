// Endpoint 12: history. Each value is the raw meter reading at the end of its interval (the last
// sample inside it), stamped with the interval's last second in +05:30; empty intervals are left out.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../../http/envelope.ts';
import { ApiError } from '../../../http/errors.ts';
import type { SampleProperty } from '../../../store/types.ts';
import { ownDevice } from '../access.ts';
import type { V2Options } from '../context.ts';
import * as ex from '../examples.ts';
import { dayRange, historyStamper, readHistory } from '../history-read.ts';
import * as R from '../responses.ts';
import { DEVICE, responses } from '../responses.ts';
import { deviceParams, historyQuery } from '../schemas.ts';
import { propertiesOf } from '../views.ts';

const HISTORY_DESCRIPTION = [
  'Raw meter values at the end of each interval (not consumption: for a cumulative property,',
  "consumption over a period is the last reading minus the first), stamped with the interval's",
  'last second in +05:30 (daily: 23:59:59). Intervals with no sample are left out.',
  '',
  '**The interval in progress** (today at `1d`, the current quarter hour at `15m`) is included: its',
  "value is the reading so far, and it is stamped with the interval's end, a time still in the",
  'future. Read again after the interval ends for its final value (spec-decisions 68).',
  '',
  'A range covers at most 366 days; `energy` and `active_energy` name the same register.',
].join('\n');

export async function historyRoutes(app: FastifyInstance, { world }: V2Options): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store, twins } = world;
  const now = () => world.clock.now();

  r.get(
    '/devices/:device_id/metrics/history',
    {
      schema: {
        tags: ['history'],
        security: [{ apiKey: [] }],
        operationId: 'getDeviceHistory',
        summary: '12. Historical readings',
        description: HISTORY_DESCRIPTION,
        response: responses({ data: R.history, example: ex.historyExample, errors: DEVICE }),
        params: deviceParams,
        querystring: historyQuery,
      },
    },
    async (req) => {
      const q = req.query;
      const device = await ownDevice(store, req.account, req.params.device_id);
      // `energy` and `active_energy` both name the cumulative active energy register.
      const stored: SampleProperty =
        q.property_id === 'active_energy' ? 'energy' : (q.property_id as SampleProperty);
      const property = propertiesOf(device, twins.get(device.deviceId)).find((p) => p.property_id === stored);
      if (!property) throw ApiError.validation([{ loc: ['property_id'], msg: 'Invalid property ID' }]);
      const points = await readHistory(
        store,
        device.pk,
        stored,
        dayRange(q.from_date, q.to_date),
        q.interval,
      );
      const stamp = historyStamper(q.interval);
      const readings = points.map((p) => ({
        property_id: q.property_id,
        value: p.value,
        unit: property.unit,
        timestamp: stamp(p),
      }));
      return success(now(), {
        device_id: device.deviceId,
        from_date: q.from_date,
        to_date: q.to_date,
        readings,
      });
    },
  );
}
