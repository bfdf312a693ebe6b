// Issue 19 step 7: a discrete change of one virtual meter (here a relay command) persists that meter's
// snapshot soon, batched, and not every meter of the world (decision 268). Through the real service:
// the embedded broker, the twins, a SQLite file, HTTP for provisioning.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MeterSnapshot } from '../../src/store/types.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type Tenant, tenant } from '../helpers/v2.ts';

let t: TestService;
let meters: Tenant[];
/** The device pks of every saveMeterSnapshots call, in order. */
const saves: number[][] = [];

beforeAll(async () => {
  t = await startTestService({ speed: 0 });
  meters = [];
  for (let i = 0; i < 3; i++) meters.push(await tenant(t.sim, { mode: 'postpaid', load_watts: 500 }));
  // The real store, its calls recorded on the way through.
  const store = t.svc.store;
  const save = store.saveMeterSnapshots.bind(store);
  store.saveMeterSnapshots = (snapshots: readonly MeterSnapshot[]) => {
    saves.push(snapshots.map((s) => s.devicePk));
    return save(snapshots);
  };
});
afterAll(() => t.close());

describe('snapshots after a discrete change', () => {
  it('a relay command saves the commanded meter alone, soon, with its new relay state', async () => {
    const target = meters[1]!;
    const pk = (await t.svc.store.getDevice(target.deviceId))!.pk;
    saves.length = 0;
    const outcome = await t.svc.world.twins.command(target.deviceId, { op: 'set_relay', on: false }, 3_000);
    expect(outcome).toMatchObject({ ok: true });
    await expect
      .poll(() => saves.some((pks) => pks.length === 1 && pks[0] === pk), { timeout: 1_000 })
      .toBe(true);
    const stored = (await t.svc.store.loadMeterSnapshots()).find((s) => s.devicePk === pk)!;
    const body = JSON.parse(stored.state) as { meter: string };
    expect(JSON.parse(body.meter)).toMatchObject({ relayCommanded: false });
  });
});
