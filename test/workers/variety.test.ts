// Issue 20 item 16: "every fleet-worker meter reports the same power and balance (375.2 W, ₹499.92 on
// all 10,000)". A worker's meters from one household load are each their own household, and the same
// seed makes the same fleet (spec-decisions 201). Real service, real HTTP, a real `meterstack fleet`.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deserializeMeter } from '../../simulator/meter/index.ts';
import type { LoadProfile } from '../../simulator/meter/types.ts';
import { FleetProcess } from '../helpers/fleet.ts';
import { ADMIN_TOKEN, newAccount, ok, startTestService, type TestService } from '../helpers/service.ts';
import { type Metrics, v2Client } from '../helpers/v2.ts';

let t: TestService;
let worker: FleetProcess | null = null;
beforeAll(async () => {
  t = await startTestService({ speed: 0 });
});
afterAll(async () => {
  await worker?.stop('SIGKILL');
  await t?.close();
});

/** Registers as `meterstack fleet` does and returns each new meter's load, by device id. */
async function registerLoads(name: string, prefix: string, seed: number, accountId: number) {
  const reg = ok(
    await t.sim<{ meters: { device_id: string; meter: string }[] }>('POST', '/workers', {
      name,
      prefix,
      count: 10,
      profile: { kind: 'household', peak_watts: 2000 },
      seed,
      balance: 50_000,
      account_id: accountId,
      pid: process.pid,
      host: 'test',
    }),
    201,
  );
  return reg.meters.map((m): LoadProfile => deserializeMeter(m.meter).load);
}

describe('a fleet worker’s meters', () => {
  it('each get their own household from one profile, the same for the same seed', async () => {
    const { account_id } = await newAccount(t.sim, 'variety');
    const a = await registerLoads('var-a', 'VA', 42, account_id);
    const b = await registerLoads('var-b', 'VB', 42, account_id);
    const c = await registerLoads('var-c', 'VC', 43, account_id);
    expect(new Set(a.map((l) => JSON.stringify(l))).size).toBe(10);
    // Meter n of one seed is meter n of the other worker with that seed; another seed, other loads.
    expect(b).toEqual(a);
    expect(c.filter((l, i) => JSON.stringify(l) === JSON.stringify(a[i]))).toEqual([]);
  });

  it('read different powers and, an hour on, different balances through the v2 API', async () => {
    const acct = await newAccount(t.sim, 'variety-live');
    worker = new FleetProcess([
      ...['--url', t.svc.httpUrl, '--admin-token', ADMIN_TOKEN, '--prefix', 'VL', '--count', '10'],
      ...['--account', String(acct.account_id), '--balance', '50000', '--seed', '7'],
    ]);
    await worker.ready();
    ok(await t.sim('POST', '/clock/advance', { seconds: 3600 }));
    const v2 = v2Client(t.svc.httpUrl, acct.api_key);
    const ids = Array.from({ length: 10 }, (_, i) => `VL${String(i + 1).padStart(6, '0')}`);
    const metrics = await Promise.all(
      ids.map(async (id) => {
        const res = await v2<Metrics>('GET', `/devices/${id}/metrics`);
        expect(res.status, id).toBe(200);
        return res.body.data!;
      }),
    );
    // 0.1 W and 1 paise resolutions: a few may meet by chance, a clone fleet reads one value.
    expect(new Set(metrics.map((m) => m.active_power)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(metrics.map((m) => m.balance)).size).toBeGreaterThanOrEqual(5);
    expect(await worker.stop()).toEqual({ code: 0, signal: null });
  });
});
