// Issue 8 item 2: a retried recharge whose transaction id the meter has forgotten (it remembers 1,024,
// [M-8]) must not credit again. The ledger decides [LEDGER-1]; meter and ledger are checked against each
// other on every start and on demand [LEDGER-3].

import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RECENT_RECHARGES_LIMIT } from '../../simulator/meter/commands.ts';
import { dbBackends, freshDb } from '../helpers/db.ts';
import {
  newAccount,
  ok,
  provision,
  startTestService,
  type TestService,
  tempDir,
} from '../helpers/service.ts';

const U = 3_600_000_000_000n;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(db: string): Promise<TestService> {
  const t = await startTestService({ db, speed: 0 });
  cleanups.push(() => t.close());
  return t;
}

interface LedgerReport {
  meters: number;
  disagreements: { device_id: string; difference_paise: number; ledger_paise: number }[];
  at_start: { meters: number; disagreements: number };
}

const exactBalance = async (t: TestService, id: string) =>
  BigInt(ok(await t.sim<{ balance_exact: { units: string } }>('GET', `/devices/${id}`)).balance_exact.units);

describe.each(await dbBackends())(
  '[LEDGER-1] issue 8 item 2: a duplicate never reaches the meter ($name)',
  ({ name }) => {
    it('1,100 recharges, then a retry of the first: credited once, ledger = meter, across a restart', async () => {
      const { db, remove } = await freshDb(name);
      cleanups.push(remove);
      const t = await start(db);
      const { account_id } = await newAccount(t.sim);
      const { device_id } = await provision(t.sim, { account_id, balance: 1_000, load_watts: 0 });
      const N = 1_100;
      expect(N).toBeGreaterThan(RECENT_RECHARGES_LIMIT); // the first id is out of the meter's memory
      for (let i = 0; i < N; i++) {
        // World.recharge is what POST /sim/v1/devices/{id}/recharge calls; 1,100 HTTP round trips add nothing.
        const r = await t.svc.world.recharge(device_id, 100, `pay-${i}`);
        expect(r.applied).toBe(true);
      }
      const expected = 1_000 + N * 100;
      expect(await exactBalance(t, device_id)).toBe(BigInt(expected) * U);

      const retry = await t.sim('POST', `/devices/${device_id}/recharge`, {
        amount: 100,
        transaction_id: 'pay-0',
      });
      expect(ok(retry)).toEqual({ balance: expected, applied: false });
      expect(retry.body.message).toBe('recharge already applied');
      expect(await exactBalance(t, device_id)).toBe(BigInt(expected) * U);
      const conflict = await t.sim('POST', `/devices/${device_id}/recharge`, {
        amount: 101,
        transaction_id: 'pay-0',
      });
      expect(conflict.status).toBe(409);

      const report = ok(await t.sim<LedgerReport>('GET', '/ledger'));
      expect(report).toMatchObject({ meters: 1, disagreements: [] });
      await t.close();
      cleanups.pop();

      const again = await start(db);
      expect(await exactBalance(again, device_id)).toBe(BigInt(expected) * U);
      expect(
        ok(
          await again.sim('POST', `/devices/${device_id}/recharge`, { amount: 100, transaction_id: 'pay-1' }),
        ),
      ).toEqual({ balance: expected, applied: false });
      expect(await exactBalance(again, device_id)).toBe(BigInt(expected) * U);
      expect(ok(await again.sim<LedgerReport>('GET', '/ledger'))).toEqual({
        meters: 1,
        disagreements: [],
        external: { meters: 0, pending: 0, disagreements: [] }, // [LEDGER-6] none credited here
        at_start: { meters: 1, disagreements: 0 },
      });
      expect(again.logs).toContain('info ledger check: 1 of 1 virtual meters agree with their ledger');
      // PostgreSQL fsyncs each commit (synchronous_commit on: money): 5-15 ms a recharge on this machine.
    }, 90_000);
  },
);

describe('[LEDGER-3] issue 8 item 2: on start, a meter that disagrees with its ledger is reported', () => {
  it('names the device, both figures and the difference, in the log and in GET /sim/v1/ledger', async () => {
    const { dir, remove } = tempDir();
    cleanups.push(remove);
    const db = `${dir}/meterstack.db`;
    const t = await start(db);
    const { account_id } = await newAccount(t.sim);
    const good = await provision(t.sim, { account_id, balance: 20_000, load_watts: 1500 });
    const bad = await provision(t.sim, { account_id, balance: 41_404, load_watts: 0 });
    ok(await t.sim('POST', `/devices/${bad.device_id}/recharge`, { amount: 50_000, transaction_id: 'p-1' }));
    ok(await t.sim('POST', '/clock/advance', { seconds: 3 * 3600 }));
    await t.close();
    cleanups.pop();

    // The meter's flash says 50,000 paise more than it was ever given (the audit's 141,404 vs 91,404).
    const sqlite = new Database(db);
    const pk = sqlite
      .prepare<[string], { pk: number }>('SELECT pk FROM devices WHERE device_id = ?')
      .get(bad.device_id)!.pk;
    const row = sqlite
      .prepare<[number], { state: string }>('SELECT state FROM meter_snapshots WHERE device_pk = ?')
      .get(pk)!;
    const body = JSON.parse(row.state);
    const meterState = JSON.parse(body.meter);
    meterState.balance = (BigInt(meterState.balance) + 50_000n * U).toString();
    body.meter = JSON.stringify(meterState);
    sqlite.prepare('UPDATE meter_snapshots SET state = ? WHERE device_pk = ?').run(JSON.stringify(body), pk);
    sqlite.close();

    const again = await start(db);
    expect(again.logs).toContain(
      `warn ledger check: ${bad.device_id} disagrees with its ledger: meter balance 141404 paise, ` +
        'ledger 91404 paise − billed 0 = 91404 paise, difference +50000 paise',
    );
    expect(again.logs).toContain('warn ledger check: 1 of 2 virtual meters agree with their ledger');
    const report = ok(await again.sim<LedgerReport>('GET', '/ledger'));
    expect(report.at_start).toEqual({ meters: 2, disagreements: 1 });
    expect(report.disagreements).toEqual([
      expect.objectContaining({ device_id: bad.device_id, ledger_paise: 91_404, difference_paise: 50_000 }),
    ]);
    const view = ok(await again.sim<{ ledger: { agrees: boolean } }>('GET', `/devices/${good.device_id}`));
    expect(view.ledger.agrees).toBe(true);
  });
});
