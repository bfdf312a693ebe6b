// Issue 12 §2 through the service: POST /sim/v1/snapshots and /restore on a world of N live virtual
// meters with D days of 15-minute history each (backfilled at provisioning), timed end to end over HTTP
// (the restore includes stopping and restarting every meter on the broker). The store-level figures and
// SQLite's own copy as the peer are in bench/snapshots.ts.
// Run: npx tsx bench/snapshots-world.ts [meters=1000] [days=30]

import { performance } from 'node:perf_hooks';
import { newAccount, ok, provision, startTestService } from '../test/helpers/service.ts';

const METERS = Number(process.argv[2] ?? 1000);
const DAYS = Number(process.argv[3] ?? 30);

const t = await startTestService({ speed: 0, clockStart: Date.parse('2026-02-01T00:00:00+05:30') });
try {
  const t0 = performance.now();
  const { account_id } = await newAccount(t.sim, 'bench');
  const batch = 20;
  for (let i = 0; i < METERS; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, METERS - i) }, () =>
        provision(t.sim, {
          account_id,
          load_watts: 600,
          backfill_days: DAYS,
          backfill_period_s: 900,
          telemetry_period_s: 900,
        }),
      ),
    );
  }
  console.log(
    `world: ${METERS} meters × ${DAYS} days at 15 min, provisioned in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const time = async (what: string, fn: () => Promise<unknown>) => {
    const s = performance.now();
    await fn();
    const ms = performance.now() - s;
    console.log(`${what.padEnd(36)} ${(ms / 1000).toFixed(2)} s`);
    return ms;
  };
  await time('POST /sim/v1/snapshots', async () =>
    ok(await t.sim('POST', '/snapshots', { name: 'bench' }), 201),
  );
  ok(await t.sim('POST', '/clock/advance', { seconds: 86_400 }));
  await time('POST /sim/v1/snapshots/bench/restore', async () =>
    ok(await t.sim('POST', '/snapshots/bench/restore')),
  );
  await time('restore again', async () => ok(await t.sim('POST', '/snapshots/bench/restore')));
  const online = ok(await t.sim<{ online: boolean }[]>('GET', '/devices')).filter((d) => d.online).length;
  console.log(`online after restore: ${online} of ${METERS}`);
} finally {
  await t.close();
}
