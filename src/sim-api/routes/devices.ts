// POST /sim/v1/devices (provisioning), GET /sim/v1/devices (every meter, virtual and external) and
// GET /sim/v1/devices/{device_id} (one, with its ledger check). The meter's controls are devices/*.ts.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { reportedState } from '../../../simulator/meter/index.ts';
import { success } from '../../http/envelope.ts';
import { ApiError } from '../../http/errors.ts';
import { externalCheckView } from '../../world/external-ledger-check.ts';
import { ledgerCheckView } from '../../world/ledger-check.ts';
import { simDoc } from '../docs.ts';
import * as s from '../schemas.ts';
import { deviceInputFrom, externalView, meterView } from '../views.ts';
import { mapWorldError } from '../world-errors.ts';
import type { SimContext } from './context.ts';

const EXTERNAL_POLICY = 'An external meter keeps its own prepaid policy: leave prepaid_policy out';

export async function deviceRoutes(
  app: FastifyInstance,
  { world, now, virtualMeter }: SimContext,
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post('/devices', { schema: { ...simDoc('createDevice'), body: s.deviceBody } }, async (req, reply) => {
    if (req.body.external && req.body.prepaid_policy)
      throw ApiError.validation([{ loc: ['prepaid_policy'], msg: EXTERNAL_POLICY }]);
    const { device, secret, meter } = await world
      .provisionDevice(deviceInputFrom(req.body))
      .catch(mapWorldError);
    reply.code(201);
    return success(
      now(),
      {
        device_id: device.deviceId,
        account_id: device.accountId,
        space_id: device.spaceId,
        model: device.model,
        mqtt: { url: world.mqttUrl, username: device.deviceId, password: secret },
        kind: device.kind,
        meter: meter ? meterView(meter, now()) : null,
      },
      'device created',
    );
  });

  r.get('/devices', { schema: simDoc('listSimDevices') }, async () => {
    const virtual = [...world.fleet.meters()].map((m) => ({
      device_id: m.id,
      external: false,
      online: m.online,
      connected: m.connected,
      ...reportedState(m.state, now()),
    }));
    const external = (await world.store.listDevices())
      .filter((d) => d.kind === 'external')
      .map((d) => externalView(d, world.twins.get(d.deviceId)));
    return success(now(), [...virtual, ...external]);
  });

  r.get(
    '/devices/:device_id',
    { schema: { ...simDoc('getSimDevice'), params: s.deviceIdParams } },
    async (req) => {
      const meter = world.meter(req.params.device_id);
      const worker = world.workers?.hostOf(req.params.device_id);
      if (!meter && worker !== undefined) {
        // A fleet worker's meter: what the service saw of it, and its stored state against the ledger.
        const device = (await world.store.getDevice(req.params.device_id))!;
        const [check] = (await world.workers?.checkLedger(device.deviceId)) ?? [];
        return success(now(), {
          ...externalView(device, world.twins.get(device.deviceId)),
          external: false,
          worker,
          ledger: check ? ledgerCheckView(check) : null,
        });
      }
      if (!meter) {
        const device = await world.store.getDevice(req.params.device_id);
        if (device?.kind !== 'external') await virtualMeter(req.params.device_id);
        const [check] = await world.checkExternalLedger(device!.deviceId);
        return success(now(), {
          ...externalView(device!, world.twins.get(device!.deviceId)),
          ledger: check ? externalCheckView(check) : null,
        });
      }
      meter.tick(now());
      const [check] = await world.checkLedger(meter.id);
      return success(now(), {
        external: false,
        ...meterView(meter, now()),
        ledger: check ? ledgerCheckView(check) : null,
      });
    },
  );
}
