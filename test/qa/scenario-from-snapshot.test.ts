// A scenario that starts from an exported world snapshot (`from_snapshot`, issue 12 §2 and §5): the
// runner seeds a world of its own from the file, as `serve --from-snapshot` does, adopts the accounts
// and meters the YAML names, and the timeline runs on from the snapshot's clock and balances.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../src/qa/scenario/load.ts';
import { runScenario } from '../../src/qa/scenario/run.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';

let t: TestService;
let dir: { dir: string; remove: () => void };

beforeAll(async () => {
  dir = tempDir();
  t = await startTestService({ speed: 0, clockStart: Date.parse('2026-03-01T00:00:00+05:30') });
  const account = ok(await t.sim<{ account_id: number }>('POST', '/accounts', { name: 'acme' }));
  const space = ok(
    await t.sim<{ space_id: number }>('POST', '/spaces', { account_id: account.account_id, name: 'Block A' }),
  );
  ok(
    await t.sim('POST', '/devices', {
      account_id: account.account_id,
      space_id: space.space_id,
      device_id: 'MTR-FS-1',
      mode: 'postpaid',
      load_watts: 1000,
      balance: 5000,
    }),
    201,
  );
  ok(await t.sim('POST', '/clock/advance', { seconds: 1800 })); // 0.5 kWh at 800 paise: 400 paise
  ok(await t.sim('POST', '/snapshots', { name: 'seed' }), 201);
  const res = await fetch(`${t.svc.httpUrl}/sim/v1/snapshots/seed/export`, {
    headers: { 'x-admin-token': ADMIN_TOKEN },
  });
  writeFileSync(join(dir.dir, 'seed.sqlite'), new Uint8Array(await res.arrayBuffer()));
}, 60_000);
afterAll(async () => {
  await t?.close();
  dir?.remove();
});

const yaml = (balanceAfter: number) => `name: from a snapshot
from_snapshot: seed.sqlite
world:
  accounts:
    - name: acme
      spaces:
        - name: Block A
          meters:
            - { id: MTR-FS-1 }
timeline:
  # About 400 paise billed before the snapshot (0.5 kWh at 800; paise are rounded toward -infinity)
  - name: the balance of the snapshot
    expect_meter: { meter: MTR-FS-1, balance: 4599 }
  - call: { method: GET, path: /api/v2/devices/MTR-FS-1/, as: acme }
    expect: { status: 200, data: { device_id: MTR-FS-1 } }
  - advance: 1h
  - name: an hour on from the snapshot's clock
    expect_meter: { meter: MTR-FS-1, balance: ${balanceAfter} }
  - history: { meter: MTR-FS-1, interval: 60m, from: '2026-03-01', to: '2026-03-01', as: acme }
    expect: { status: 200, data: { readings: { $length: 2 } } }
`;

describe('scenario from_snapshot', () => {
  it('runs on from the world, clock and balances of the exported file', async () => {
    const file = join(dir.dir, 'from-snapshot.yaml');
    writeFileSync(file, yaml(3799));
    const report = await runScenario(file, await loadScenario(file));
    expect(report.setupError).toBeNull();
    const failures = report.steps.flatMap((s) => s.checks.filter((c) => c.failure !== null));
    expect(failures, JSON.stringify(report.steps, null, 1).slice(0, 3000)).toEqual([]);
    expect(report.passed).toBeGreaterThanOrEqual(5);
  }, 60_000);

  it('a wrong expectation still fails (the run reads the seeded world, not a fresh one)', async () => {
    const file = join(dir.dir, 'from-snapshot-wrong.yaml');
    writeFileSync(file, yaml(4599)); // as if the clock had not moved
    const report = await runScenario(file, await loadScenario(file));
    expect(report.setupError).toBeNull();
    expect(report.failed).toBe(1);
  }, 60_000);
});
