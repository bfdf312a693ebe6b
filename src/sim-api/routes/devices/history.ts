// GET /sim/v1/devices/{device_id}/history.csv (HX-1..HX-4): a device's stored history as a CSV file,
// streamed; GET /sim/v1/devices/{device_id}/history/span (HX-5): when its stored readings begin and
// end. Both read only the store: any device (virtual, external, a worker's), and an API instance
// answers them itself (../../forward.ts).

import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Interval } from '../../../api/v2/history-read.ts';
import { propertiesOf } from '../../../api/v2/views.ts';
import { success } from '../../../http/envelope.ts';
import { ApiError } from '../../../http/errors.ts';
import type { DeviceRecord } from '../../../store/types.ts';
import { istDate, toIstIso } from '../../../time/ist.ts';
import { HISTORY_CSV_DOC, simDoc } from '../../docs.ts';
import { csvColumns, csvFileName, historyCsv } from '../../history-csv.ts';
import { deviceIdParams, historyCsvQuery } from '../../schemas.ts';
import type { SimContext } from '../context.ts';

export async function historyRoutes(app: FastifyInstance, { world, now }: SimContext): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { store, twins } = world;
  const device = async (id: string): Promise<DeviceRecord> => {
    const d = await store.getDevice(id);
    if (!d) throw new ApiError('not_found', `device ${id} not found`);
    return d;
  };

  // Not through the zod type provider's reply: its 200 is a stream, not the envelope.
  app.get(
    '/devices/:device_id/history.csv',
    { schema: { ...HISTORY_CSV_DOC, params: deviceIdParams, querystring: historyCsvQuery } },
    async (req, reply) => {
      const { device_id } = req.params as { device_id: string };
      const q = req.query as { from: string; to: string; interval: Interval };
      const d = await device(device_id);
      const columns = csvColumns(propertiesOf(d, twins.get(d.deviceId)));
      const body = historyCsv(store, { devicePk: d.pk, columns, ...q });
      return reply
        .type('text/csv; charset=utf-8')
        .header(
          'content-disposition',
          `attachment; filename="${csvFileName(d.deviceId, q.from, q.to, q.interval)}"`,
        )
        .send(Readable.from(body, { objectMode: false }));
    },
  );

  r.get(
    '/devices/:device_id/history/span',
    { schema: { ...simDoc('getHistorySpan'), params: deviceIdParams } },
    async (req) => {
      const d = await device(req.params.device_id);
      const span = await store.sampleSpan(d.pk);
      return success(now(), {
        device_id: d.deviceId,
        first: span ? toIstIso(span.first) : null,
        last: span ? toIstIso(span.last) : null,
        from: span ? istDate(span.first) : null,
        to: span ? istDate(span.last) : null,
      });
    },
  );
}
