// World snapshots are not supported while fleet workers host meters (spec-decisions 111): a snapshot,
// a restore and a reset answer 409 naming the worker, and nothing changes. The worker's registration
// is made as `meterstack fleet` makes it (test/workers/heartbeat.test.ts).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, ok, startTestService, type TestService } from '../helpers/service.ts';
import { failed } from '../helpers/v2.ts';

let t: TestService;
beforeAll(async () => {
  t = await startTestService({ speed: 0 });
});
afterAll(() => t?.close());

describe('world snapshots with fleet workers', () => {
  it('a snapshot, a restore and a reset are 409 conflicts naming the worker; nothing changes', async () => {
    const { account_id } = await newAccount(t.sim, 'w');
    ok(await t.sim('POST', '/snapshots', { name: 'before' }), 201);
    ok(
      await t.sim('POST', '/workers', {
        name: 'edge-1',
        prefix: 'EDG',
        count: 2,
        account_id,
        pid: process.pid,
        host: 'test',
      }),
      201,
    );
    for (const [method, path, body] of [
      ['POST', '/snapshots', { name: 'after' }],
      ['POST', '/snapshots/before/restore', undefined],
      ['POST', '/reset', undefined],
    ] as const) {
      const res = await t.sim(method, path, body);
      const detail = failed(res as never, 409, 'conflict');
      expect(detail).toMatch(/fleet workers host meters \(2 in edge-1\)/);
    }
    expect(ok(await t.sim<{ name: string }[]>('GET', '/snapshots')).map((s) => s.name)).toEqual(['before']);
  }, 60_000);
});
