// /sim/v1/devices/{id}/faults (issue 12 §1): switch a fault on a virtual meter (now or at a virtual
// time, for a duration or until cleared), list its active and scheduled faults, clear one or all.
// The checks a schema cannot make and the view are src/world/faults.ts; the meter acts on them.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { success } from '../../../http/envelope.ts';
import { ApiError } from '../../../http/errors.ts';
import { faultBody, faultIdParams } from '../../../world/fault-schemas.ts';
import { addFault, clearFaults, faultView, liveFaults } from '../../../world/faults.ts';
import { simDoc } from '../../docs.ts';
import { deviceIdParams } from '../../schemas.ts';
import type { SimContext } from '../context.ts';

export async function faultRoutes(
  app: FastifyInstance,
  opts: Pick<SimContext, 'world' | 'virtualMeter'>,
): Promise<void> {
  const { world, virtualMeter } = opts;
  const r = app.withTypeProvider<ZodTypeProvider>();
  const now = () => world.clock.now();
  const ctx = (id: string) => ({ deviceId: id });

  r.post(
    '/devices/:device_id/faults',
    { schema: { ...simDoc('addDeviceFault'), params: deviceIdParams, body: faultBody } },
    async (req, reply) => {
      const meter = await virtualMeter(req.params.device_id);
      const t = now();
      const out = addFault(meter, req.body, t);
      if (!out.ok) {
        if (out.problem.kind === 'conflict') throw new ApiError('conflict', out.problem.message);
        throw ApiError.validation(out.problem.items);
      }
      const f = out.fault;
      world.bus.emit(
        'fault.added',
        { fault_id: f.id, kind: f.kind, from: f.from, until: f.until },
        ctx(meter.id),
      );
      reply.code(201);
      return success(t, faultView(f, t), f.from > t ? 'fault scheduled' : 'fault started');
    },
  );

  r.get(
    '/devices/:device_id/faults',
    { schema: { ...simDoc('listDeviceFaults'), params: deviceIdParams } },
    async (req) => {
      const meter = await virtualMeter(req.params.device_id);
      const t = now();
      meter.tick(t);
      return success(
        t,
        liveFaults(meter.state, t).map((f) => faultView(f, t)),
      );
    },
  );

  r.delete(
    '/devices/:device_id/faults',
    { schema: { ...simDoc('clearDeviceFaults'), params: deviceIdParams } },
    async (req) => {
      const meter = await virtualMeter(req.params.device_id);
      const t = now();
      const cleared = clearFaults(meter, 'all', t);
      if (cleared.length > 0)
        world.bus.emit('fault.cleared', { fault_ids: cleared.map((f) => f.id) }, ctx(meter.id));
      return success(
        t,
        cleared.map((f) => faultView(f, t)),
        `${cleared.length} fault${cleared.length === 1 ? '' : 's'} cleared`,
      );
    },
  );

  r.delete(
    '/devices/:device_id/faults/:fault_id',
    { schema: { ...simDoc('clearDeviceFault'), params: faultIdParams.extend(deviceIdParams.shape) } },
    async (req) => {
      const meter = await virtualMeter(req.params.device_id);
      const t = now();
      const [cleared] = clearFaults(meter, req.params.fault_id, t);
      if (!cleared)
        throw new ApiError(
          'not_found',
          `meter ${meter.id} has no active or scheduled fault ${req.params.fault_id}`,
        );
      world.bus.emit('fault.cleared', { fault_ids: [cleared.id] }, ctx(meter.id));
      return success(t, faultView(cleared, t), 'fault cleared');
    },
  );
}
