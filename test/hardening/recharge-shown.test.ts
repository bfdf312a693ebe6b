// [LEDGER-1] A recharge through /sim/v1 returns once the service has taken the state the credit made
// the meter publish, so the very next v2 request shows the new balance (read your writes). The HTTP
// fuzz test caught it the other way round: a ledger of 100,050,000 paise while GET device still said
// 50,000, because the meter's state was still on its way over MQTT.

import { afterEach, describe, expect, it } from 'vitest';
import { ok, startTestService, type TestService } from '../helpers/service.ts';
import { data, tenant, v2Client } from '../helpers/v2.ts';

let t: TestService | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

describe('[LEDGER-1] a recharge is shown by the v2 API to the next request', () => {
  it('40 recharges, each followed at once by GET device: never the old balance', async () => {
    t = await startTestService({ speed: 0 });
    const a = await tenant(t.sim, { mode: 'prepaid', balance: 50_000, load_watts: 0 });
    const v2 = v2Client(t.svc.httpUrl, a.key);
    let expected = 50_000;
    const stale: string[] = [];
    for (let i = 0; i < 40; i++) {
      const amount = 1_000 + i;
      const r = ok(
        await t.sim<{ balance: number; applied: boolean }>('POST', `/devices/${a.deviceId}/recharge`, {
          amount,
          transaction_id: `shown-${i}`,
        }),
      );
      expected += amount;
      expect(r).toEqual({ balance: expected, applied: true });
      const device = data(await v2<{ balance: number }>('GET', `/devices/${a.deviceId}/`));
      if (device.balance !== expected) stale.push(`after ${i}: device ${device.balance} != ${expected}`);
    }
    expect(stale).toEqual([]);
  });
});
