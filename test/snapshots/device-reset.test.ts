// POST /sim/v1/devices/{id}/reset (spec-decisions 116) through the real service: the meter starts over
// with its configuration, its readings gone and its balance the opening amount, the ledger agreeing
// through one adjustment entry; another meter is untouched.

import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, provision, startTestService, type TestService } from '../helpers/service.ts';
import { failed, type Tenant, tenant } from '../helpers/v2.ts';

const START = Date.parse('2026-01-01T00:00:00+05:30');

let t: TestService;
let a: Tenant;
let other: string;

beforeAll(async () => {
  t = await startTestService({ speed: 0, clockStart: START + 86_400_000 });
  a = await tenant(t.sim, { mode: 'prepaid', balance: 10_000, load_watts: 800, backfill_days: 1 });
  other = (await provision(t.sim, { account_id: a.accountId, load_watts: 500 })).device_id;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

interface View {
  balance: number;
  energy_kwh: number;
  relay_commanded: boolean;
  mode: string;
}
const view = async (id: string) => ok(await t.sim<View>('GET', `/devices/${id}`));
const samples = (id: string) => {
  const db = new Database(t.db, { readonly: true });
  try {
    return (
      db
        .prepare(
          'SELECT count(*) AS n FROM samples s JOIN devices d ON d.pk = s.device_pk WHERE d.device_id = ?',
        )
        .get(id) as { n: number }
    ).n;
  } finally {
    db.close();
  }
};

describe('POST /sim/v1/devices/{id}/reset', () => {
  it('readings gone, registers zero, balance the opening amount through one adjustment; the ledger agrees', async () => {
    ok(await t.sim('POST', `/devices/${a.deviceId}/recharge`, { amount: 5_000, transaction_id: 'r-1' }));
    ok(await t.sim('POST', '/clock/advance', { seconds: 3_600 }));
    const before = await view(a.deviceId);
    expect(before.energy_kwh).toBeGreaterThan(0);
    expect(samples(a.deviceId)).toBeGreaterThan(1_000);
    const otherBefore = { samples: samples(other), energy: (await view(other)).energy_kwh };

    const done = ok(
      await t.sim<{ balance: number; adjustment: number }>('POST', `/devices/${a.deviceId}/reset`),
    );
    expect(done).toEqual({ device_id: a.deviceId, balance: 10_000, adjustment: 10_000 - (10_000 + 5_000) });
    const after = await view(a.deviceId);
    expect(after).toMatchObject({ balance: 10_000, energy_kwh: 0, relay_commanded: true, mode: before.mode });
    expect(samples(a.deviceId)).toBeLessThanOrEqual(1); // at most its connect sample
    expect(ok(await t.sim<{ disagreements: unknown[] }>('GET', '/ledger')).disagreements).toEqual([]);
    // The ledger is append-only: the recharge's transaction id stays used.
    const again = ok(
      await t.sim<{ applied: boolean }>('POST', `/devices/${a.deviceId}/recharge`, {
        amount: 5_000,
        transaction_id: 'r-1',
      }),
    );
    expect(again.applied).toBe(false);
    expect({ samples: samples(other), energy: (await view(other)).energy_kwh }).toEqual(otherBefore);
  }, 60_000);

  it('an unknown device is a 404', async () => {
    failed((await t.sim('POST', '/devices/NOPE0001/reset')) as never, 404, 'not_found');
  });
});
