// A fleet worker's heartbeat is answered while another worker registers (spec-decisions 83): the
// registration of thousands of meters holds the hub's turn for seconds to minutes, and a heartbeat that
// waited behind it timed out and stopped its worker (found by the 50,000-meter bench). Real service,
// real HTTP, the worker routes called as `meterstack fleet` calls them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, ok, startTestService, type TestService } from '../helpers/service.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ speed: 0 });
});
afterAll(() => t?.close());

const register = (name: string, prefix: string, count: number, accountId: number) =>
  t.sim<{ lease_id: string }>('POST', '/workers', {
    name,
    prefix,
    count,
    account_id: accountId,
    pid: process.pid,
    host: 'test',
  });

describe('fleet worker heartbeats [WORKER-1]', () => {
  it('are answered at once while another worker’s registration provisions its meters', async () => {
    const { account_id } = await newAccount(t.sim, 'hb');
    const first = ok(await register('hb-one', 'HBA', 1, account_id), 201);
    // A big registration: the service provisions 15,000 meters in this call, taking its turn for seconds.
    const started = Date.now();
    const big = register('hb-two', 'HBB', 15_000, account_id);
    await new Promise((r) => setTimeout(r, 200));
    const beats: number[] = [];
    let bigDone = false;
    void big.then(() => {
      bigDone = true;
    });
    while (!bigDone && beats.length < 10) {
      const t0 = Date.now();
      const res = await fetch(`${t.svc.httpUrl}/sim/v1/workers/hb-one/heartbeat`, {
        method: 'POST',
        headers: {
          'x-admin-token': t.svc.adminToken,
          'x-worker-lease': first.lease_id,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ snapshots: [] }),
      });
      expect(res.status).toBe(200);
      beats.push(Date.now() - t0);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ok(await big, 201).lease_id).toBeTruthy();
    const registrationMs = Date.now() - started;
    // Only meaningful if the registration outlasted a few heartbeats.
    expect(beats.length, `registration took ${registrationMs} ms`).toBeGreaterThanOrEqual(3);
    expect(
      Math.max(...beats),
      `heartbeats ${beats.join(', ')} ms during a ${registrationMs} ms registration`,
    ).toBeLessThan(Math.max(500, registrationMs / 4));
  }, 60_000);
});
