// A 6 h clock jump of a small fleet, a recharge and a scrape sent while it is lived through, then
// `serve` killed with SIGKILL once its view after the jump is read, and started again on the same database
// (SQLite file, PostgreSQL schema). The jump is "durable before it resolves" (src/world/advance.ts):
// with the clock frozen (--speed 0) what is on disk restores (as a restart does) every meter to the
// balance and time the service showed after the jump, the recharge counted once, the clock not behind
// any meter; started again, the cut-off meters are still cut off [spec-decisions 197, 198].

import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/index.ts';
import { CLOCK_ANCHOR_SETTING, type ClockAnchor } from '../../src/world/clock-anchor.ts';
import { restoreMeter } from '../../src/world/meter-snapshot.ts';
import { type DbBackend, dbBackends, freshDb } from '../helpers/db.ts';
import { useServeOnDb } from '../helpers/serve-on-db.ts';
import { ok, type Sim } from '../helpers/service.ts';

const TOKEN = 'jump-restart-admin-token';
const N = 24;

interface MeterView {
  balance_exact: { units: string };
  meter_time: string;
  relay_state: boolean;
}

// --speed 0: what the service shows after the jump is what a restart must restore.
const { serve, stop, cleanups } = useServeOnDb(TOKEN, ['--speed=0']);

async function views(sim: Sim): Promise<Record<string, MeterView>> {
  const out: Record<string, MeterView> = {};
  for (let i = 0; i < N; i++) {
    const id = `JR-${String(i).padStart(2, '0')}`;
    const v = ok(await sim<MeterView>('GET', `/devices/${id}`));
    out[id] = { balance_exact: v.balance_exact, meter_time: v.meter_time, relay_state: v.relay_state };
  }
  return out;
}

describe.each(await dbBackends())('on $name', ({ name }) => {
  it('a meter killed right after a 6 h jump comes back as the jump left it: balance, cut-off, time, one recharge', async () => {
    const { db, remove } = await freshDb(name as DbBackend);
    cleanups.push(remove);
    const first = await serve(db);
    const { account_id } = ok(await first.sim<{ account_id: number }>('POST', '/accounts', { name: 'j' }));
    // Prepaid at 800 paise/kWh: the small balances run out within the six hours (a cut-off mid-jump).
    for (let i = 0; i < N; i += 8)
      await Promise.all(
        Array.from({ length: 8 }, (_, j) =>
          first.sim('POST', '/devices', {
            account_id,
            device_id: `JR-${String(i + j).padStart(2, '0')}`,
            balance: (i + j) % 3 === 0 ? 1_000 : 200_000,
            load_watts: 300 + 100 * (i + j),
          }),
        ),
      );
    const jump = first.sim<{ to: string }>('POST', '/clock/advance', { seconds: 6 * 3600 });
    // Sent while the jump is under way; both are answered before it returns.
    let jumped = false;
    void jump.then(() => {
      jumped = true;
    });
    const paid = first.sim('POST', '/devices/JR-05/recharge', { amount: 777, transaction_id: 'mid-jump' });
    const scrape = fetch(`${first.httpUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect((await scrape).status).toBe(200);
    expect(ok(await paid)).toMatchObject({ applied: true });
    const answeredBeforeJump = !jumped;
    const to = Date.parse(ok(await jump).to);
    expect(answeredBeforeJump).toBe(true);

    const before = await views(first.sim);
    expect(Object.values(before).some((v) => !v.relay_state)).toBe(true); // some were cut off
    await stop(first.p, 'SIGKILL');

    const store = await openStore(db);
    try {
      const anchor = JSON.parse((await store.getSetting(CLOCK_ANCHOR_SETTING))!) as ClockAnchor;
      expect(anchor.vt).toBeGreaterThanOrEqual(to);
      const snapshots = await store.loadMeterSnapshots();
      for (const [id, view] of Object.entries(before)) {
        const device = (await store.getDevice(id))!;
        const snap = snapshots.find((s) => s.devicePk === device.pk)!;
        const { state } = await restoreMeter(store, device, snap);
        expect({ id, balance: state.balance.toString(), ts: state.lastTs }).toEqual({
          id,
          balance: view.balance_exact.units,
          ts: Date.parse(view.meter_time),
        });
        expect(state.lastTs).toBeLessThanOrEqual(anchor.vt);
      }
    } finally {
      await store.close();
    }

    // Started again (its clock resumes from the saved line, so the meters live on a little).
    const second = await serve(db);
    expect(ok(await second.sim<{ now_ms: number }>('GET', '/clock')).now_ms).toBeGreaterThanOrEqual(to);
    const after = await views(second.sim);
    for (const [id, view] of Object.entries(before))
      if (!view.relay_state) expect({ id, relay: after[id]!.relay_state }).toEqual({ id, relay: false });
    // The recharge's replay is a duplicate: it was counted once, before the kill.
    expect(
      ok(await second.sim('POST', '/devices/JR-05/recharge', { amount: 777, transaction_id: 'mid-jump' })),
    ).toMatchObject({ applied: false });
  });
});
