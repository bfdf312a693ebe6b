// Money for the world's meters: a virtual meter is credited ledger first, exactly once per transaction
// id [LEDGER-1] (meter-ledger.ts); an external one through external-credits.ts [LEDGER-4]. Neither while
// a whole-world operation runs (exclusive.ts). A fleet worker's meter is credited by its hub.

import { reportedBalance } from '../../simulator/meter/index.ts';
import type { DeviceRecord } from '../store/types.ts';
import type { WorldCore } from './core.ts';
import { idle } from './exclusive.ts';
import type { ExternalRecharge } from './external-credits.ts';

/** Every outcome is a `money.recharge` event: applied, duplicate, or refused (with why). */
export async function recharge(
  core: WorldCore,
  deviceId: string,
  amount: number,
  transactionId: string,
): Promise<{ balance: number; applied: boolean }> {
  const ctx = { deviceId, accountId: core.index.accounts.get(deviceId) };
  const data = { transaction_id: transactionId, amount };
  try {
    idle(core, 'a recharge cannot be applied');
    const { balance, applied, ledgerSeq } = await core.ledger.recharge(deviceId, amount, transactionId);
    const outcome = applied ? 'applied' : 'duplicate';
    core.bus.emit('money.recharge', { outcome, ...data, ledger_seq: ledgerSeq, balance }, ctx);
    return { balance, applied };
  } catch (err) {
    const meter = core.fleet.get(deviceId);
    core.bus.emit(
      'money.recharge',
      {
        outcome: 'refused',
        ...data,
        ledger_seq: null,
        balance: meter ? reportedBalance(meter.state.balance) : null,
        reason: (err as Error).message,
      },
      ctx,
    );
    throw err;
  }
}

/** [LEDGER-4] Credits an external meter (external-credits.ts): applied, pending or refused. */
export async function rechargeExternal(
  core: WorldCore,
  device: DeviceRecord,
  amount: number,
  transactionId: string,
): Promise<ExternalRecharge> {
  idle(core, 'a recharge cannot be applied');
  return core.external.recharge(device, amount, transactionId);
}
