// /sim/v1/devices/{id}/prepaid-policy (issue 12 §4): a virtual meter's emergency credit, friendly hours
// and low-balance warnings. The meter applies a policy from the instant it is set ([M-31]); a fleet
// worker's, an external or a backfilling meter answers 409 like every other meter route.

import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { reportedState } from '../../../../simulator/meter/index.ts';
import type { VirtualMeter } from '../../../../simulator/virtual-meter.ts';
import { success } from '../../../http/envelope.ts';
import { simDoc } from '../../docs.ts';
import { policyFromBody, policyView, prepaidPolicyBody } from '../../policy-schemas.ts';
import { deviceIdParams } from '../../schemas.ts';
import type { SimContext } from '../context.ts';

/** What the meter holds and reports now: its policy, the warning it is under, balance and relay. */
export function policyState(meter: VirtualMeter, now: number) {
  const r = reportedState(meter.state, now);
  return {
    device_id: meter.id,
    prepaid_policy: policyView(meter.state.prepaidPolicy),
    low_balance: r.low_balance ?? null,
    balance: r.balance,
    relay_state: r.relay_state,
  };
}

export async function policyRoutes(
  app: FastifyInstance,
  opts: Pick<SimContext, 'virtualMeter' | 'now'>,
): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { virtualMeter, now } = opts;
  const path = '/devices/:device_id/prepaid-policy';

  r.get(path, { schema: { ...simDoc('getPrepaidPolicy'), params: deviceIdParams } }, async (req) => {
    const meter = await virtualMeter(req.params.device_id);
    meter.tick(now());
    return success(now(), policyState(meter, now()));
  });

  r.put(
    path,
    { schema: { ...simDoc('setPrepaidPolicy'), params: deviceIdParams, body: prepaidPolicyBody } },
    async (req) => {
      const meter = await virtualMeter(req.params.device_id);
      meter.setPrepaidPolicy(policyFromBody(req.body), now()); // the body is whole and valid: nothing half-set
      return success(now(), policyState(meter, now()), 'prepaid policy set');
    },
  );

  r.delete(path, { schema: { ...simDoc('clearPrepaidPolicy'), params: deviceIdParams } }, async (req) => {
    const meter = await virtualMeter(req.params.device_id);
    meter.setPrepaidPolicy(null, now());
    return success(now(), policyState(meter, now()), 'prepaid policy removed');
  });
}
