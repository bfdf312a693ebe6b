// What `POST /sim/v1/devices/{id}/recharge` answers for an external meter [LEDGER-4]: applied (the meter
// acknowledged it), pending (the ledger holds it; it goes to the meter when it is back, LEDGER-5), or the
// meter's refusal as the spec's `device_rejected` envelope, as the v2 API answers any meter refusal.

import { ApiError } from '../http/errors.ts';
import type { ExternalRecharge } from '../world/external-credits.ts';

export function externalRechargeAnswer(
  deviceId: string,
  r: ExternalRecharge,
): [{ balance: number | null; applied: boolean; status: 'applied' | 'pending' }, string] {
  if (r.status === 'refused')
    throw new ApiError('device_rejected', `Device ${deviceId} refused the recharge: ${r.reason}`);
  const data = { balance: r.balance, applied: r.applied, status: r.status };
  if (r.status === 'pending')
    return [
      data,
      `recharge in the ledger, pending: ${r.why}; it is sent again by its transaction id when the meter is back`,
    ];
  return [data, r.applied ? 'recharge applied' : 'recharge already applied'];
}
