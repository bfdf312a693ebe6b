// Endpoint 12: history. Each value is the raw meter reading at the end of its interval (the last
// sample inside it), stamped with the interval's last second in +05:30; empty intervals are left out.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../../http/envelope.ts';
import { ApiError } from '../../../http/errors.ts';
import type { BucketMinutes, SampleProperty } from '../../../store/types.ts';
import { DAY_MS, istDayStart, istIsoSecondsFormatter } from '../../../time/ist.ts';
import { ownDevice } from '../access.ts';
import type { V2Options } from '../context.ts';
import * as ex from '../examples.ts';
import * as R from '../responses.ts';
import { DEVICE, responses } from '../responses.ts';
import { deviceParams, historyQuery, type INTERVALS } from '../schemas.ts';
import { propertiesOf } from '../views.ts';

const BUCKETS: Record<(typeof INTERVALS)[number], BucketMinutes> = {
  '15m': 15,
  '30m': 30,
  '60m': 60,
  '1d': 1440,
};

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
      const bucket = BUCKETS[q.interval];
      const bucketMs = bucket * 60_000;
      const fromTs = istDayStart(q.from_date) as number;
      const toTs = (istDayStart(q.to_date) as number) + DAY_MS;
      const points = await store.history(device.pk, stored, fromTs, toTs, bucket);
      // One Date per day, not per reading: toIstIsoSeconds was half the time of a year at 15m.
      const stamp = istIsoSecondsFormatter();
      const readings = points.map((p) => ({
        property_id: q.property_id,
        value: p.value,
        unit: property.unit,
        timestamp: stamp(p.bucketStart + bucketMs - 1000),
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
