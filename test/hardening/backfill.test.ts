// issue 8 item 8: a year of backfill does not stall the service. While POST /sim/v1/devices writes
// 365 days of minute samples, /healthz keeps answering, the event loop is never held long, progress
// shows in GET /sim/v1/backfills, and the stored history is exactly what the one-go path gives
// (spec decision 52).

import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceInputFrom } from '../../src/sim-api/views.ts';
import { openStore } from '../../src/store/index.ts';
import { newMeterState } from '../../src/world/new-meter.ts';
import { newAccount, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';

const BODY = {
  device_id: 'MTR-BACKFILL',
  model: 'full',
  mode: 'postpaid',
  load_profile: 'household',
  load_watts: 2500,
  seed: 42,
  backfill_days: 365,
  backfill_period_s: 60,
  online: false,
} as const;

describe('backfill does not stall the service (issue 8 item 8)', () => {
  let t: TestService;
  const ref = tempDir('meterstack-backfill-ref-');
  beforeAll(async () => {
    // A frozen clock: the backfill ends at a time the test knows, so it can compute the reference.
    t = await startTestService({ speed: 0 });
  });
  afterAll(async () => {
    await t.close();
    ref.remove();
  });

  it('[issue 8 item 8] 365 days at 1 min: /healthz answers throughout, the loop is never held 500 ms, progress is visible', async () => {
    const { account_id } = await newAccount(t.sim);
    const nowMs = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;

    const rss0 = process.memoryUsage().rss;
    let rssMax = rss0;
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    let done = false;
    const post = t.sim('POST', '/devices', { ...BODY, account_id }).finally(() => {
      done = true;
    });
    const healthz: number[] = [];
    const progress: { done_days: number; total_days: number; samples: number }[] = [];
    while (!done) {
      const t0 = performance.now();
      const res = await fetch(`${t.svc.httpUrl}/healthz`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      healthz.push(performance.now() - t0);
      rssMax = Math.max(rssMax, process.memoryUsage().rss);
      const running = ok(await t.sim<typeof progress>('GET', '/backfills'));
      if (running[0]) {
        if (progress.length === 0) {
          // The meter is not running yet: its routes say so, with the progress.
          const r = await t.sim('GET', `/devices/${BODY.device_id}`);
          expect(r.status).toBe(409);
          expect(JSON.stringify(r.body)).toMatch(/being backfilled: \d+ of 365 days written/);
        }
        progress.push(running[0]);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    loop.disable();
    const created = ok(await post, 201);
    expect(created.device_id).toBe(BODY.device_id);

    const maxLoopMs = loop.max / 1e6;
    const maxHealthzMs = Math.max(...healthz);
    console.log(
      `[issue 8 item 8] 365-day backfill at 1 min: event loop delay max ${maxLoopMs.toFixed(1)} ms, ` +
        `p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms; ${healthz.length} GET /healthz, max ${maxHealthzMs.toFixed(1)} ms; ` +
        `RSS +${((rssMax - rss0) / 2 ** 20).toFixed(0)} MiB at most; progress seen ${progress.length} times, e.g. ${JSON.stringify(progress[Math.floor(progress.length / 2)])}`,
    );
    // One-go, this held the loop for seconds; a slice takes ~10-20 ms. 500 ms leaves room for a machine
    // whose two cores also start a RabbitMQ node or a topology of processes for other test files (the
    // whole suite saw 201-231 ms there, 20-60 ms alone).
    expect(maxLoopMs).toBeLessThan(500);
    expect(maxHealthzMs).toBeLessThan(1_000);
    expect(healthz.length).toBeGreaterThan(10);
    expect(progress.some((p) => p.done_days > 0 && p.done_days < 365 && p.total_days === 365)).toBe(true);
    expect(ok(await t.sim<unknown[]>('GET', '/backfills'))).toEqual([]);

    // The stored history equals the one-go path's, written to a fresh store in one transaction.
    const expected = newMeterState(deviceInputFrom({ ...BODY, account_id }), BODY.device_id, 1, nowMs);
    expect(expected.samples.length).toBe(365 * 1440);
    const refDb = join(ref.dir, 'ref.db');
    const store = await openStore(refDb);
    const acc = await store.createAccount('ref', nowMs);
    const dev = await store.createDevice(
      {
        deviceId: BODY.device_id,
        accountId: acc.id,
        spaceId: null,
        name: 'ref',
        description: '',
        model: 'full',
        kind: 'virtual',
        mqttSecretHash: 'x',
        udf1: null,
        udf2: null,
        udf3: null,
        udf4: null,
        udf5: null,
      },
      nowMs,
    );
    await store.insertSamples(expected.samples.map((s) => ({ ...s, devicePk: dev.pk })));
    await store.close();

    const pk = (await t.svc.store.getDevice(BODY.device_id))!.pk;
    const db = new Database(t.db, { readonly: true });
    try {
      db.prepare('ATTACH DATABASE ? AS ref').run(refDb);
      for (const table of ['samples', 'samples_15m', 'samples_1d']) {
        const cols = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[])
          .map((c) => c.name)
          .filter((c) => c !== 'device_pk')
          .join(', ');
        const count = (sql: string) => (db.prepare(sql).get(pk, dev.pk) as { n: number }).n;
        const diff = (a: string, b: string) =>
          `SELECT count(*) AS n FROM (SELECT ${cols} FROM ${a}.${table} WHERE device_pk = ? EXCEPT SELECT ${cols} FROM ${b}.${table} WHERE device_pk = ?)`;
        expect(count(diff('main', 'ref')), `${table}: rows only in the service's store`).toBe(0);
        const n = db.prepare(`SELECT count(*) AS n FROM ${table} WHERE device_pk = ?`).get(pk) as {
          n: number;
        };
        expect(n.n, `${table} rows`).toBeGreaterThan(0);
        expect(
          (
            db.prepare(`SELECT count(*) AS n FROM ref.${table} WHERE device_pk = ?`).get(dev.pk) as {
              n: number;
            }
          ).n,
        ).toBe(n.n);
      }
    } finally {
      db.close();
    }
    const meter = t.svc.world.meter(BODY.device_id)!;
    expect(meter.state.energy).toBe(expected.state.energy);
    expect(meter.state.balance).toBe(expected.state.balance);
  }, 180_000);
});
