// GET /readyz's checks (PM-7) over a real SQLite store and a real world owner lease; the twins'
// connection is the one input given as a value (test/metrics/metrics-http.test.ts takes a real broker away).

import { afterEach, describe, expect, it } from 'vitest';
import { judgeReadiness, notReadyDetail } from '../http/readiness.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/types.ts';
import { WorldOwnerLease } from '../store/world-owner.ts';
import { apiInstanceReadiness, worldReadiness } from './readiness.ts';

let store: Store;
afterEach(() => store?.close());

describe('readiness checks [PM-7]', () => {
  it('a world process: ready with its lease held and the broker connected; each loss named', async () => {
    store = await openStore(':memory:');
    const lease = await WorldOwnerLease.acquire({ store });
    const twins = { connected: true };
    const checks = worldReadiness({ store, twins, lease });
    expect(await judgeReadiness(checks)).toEqual({
      ready: true,
      checks: { store: 'ok', migrations: 'ok', broker: 'ok', world_lease: 'ok' },
    });
    twins.connected = false;
    await lease.release();
    const r = await judgeReadiness(checks);
    expect(r.ready).toBe(false);
    expect(notReadyDetail(r)).toBe(
      "Not ready: broker (the service's MQTT connection is down); world_lease (the world owner lease is not held (released or taken over)).",
    );
  });

  it('an API instance: not ready until a world process holds the store, nor once its heartbeat is stale', async () => {
    store = await openStore(':memory:');
    let wall = Date.now();
    const checks = apiInstanceReadiness({ store, twins: { connected: true }, wallNow: () => wall });
    expect((await judgeReadiness(checks)).checks['world']).toMatch(/^no world process holds the store/);
    const lease = await WorldOwnerLease.acquire({ store });
    expect(await judgeReadiness(checks)).toMatchObject({ ready: true });
    wall += 31_000;
    expect((await judgeReadiness(checks)).checks['world']).toMatch(/has not renewed its lease for 31 s$/);
    await lease.release();
  });

  it('a check that hangs or throws is not ready, within the timeout', async () => {
    const t0 = performance.now();
    const r = await judgeReadiness(
      [
        { name: 'hung', check: () => new Promise<null>(() => {}) },
        {
          name: 'broken',
          check: () => {
            throw new Error('disk on fire at /var/lib/meterstack.db');
          },
        },
        {
          // What pg throws when the database refuses: its text names host and port, its code does not.
          name: 'refused',
          check: () => {
            throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
          },
        },
      ],
      50,
    );
    expect(performance.now() - t0).toBeLessThan(500);
    // [PM-7] Anyone may ask /readyz: an error's code goes out, never its text (paths, hosts, users).
    expect(r).toEqual({
      ready: false,
      checks: { hung: 'no answer within 50 ms', broken: 'failed', refused: 'failed (ECONNREFUSED)' },
    });
  });
});
