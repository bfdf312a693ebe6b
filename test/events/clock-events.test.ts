// clock.advanced and clock.speed (issue 9 §1), and POST /sim/v1/clock/speed: validated in the envelope,
// admin only, and kept in the store like the clock offset (spec-decisions 54).

import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { Collected } from './collect.ts';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function serve(db: string, speed?: number): Promise<{ t: TestService; seen: Collected }> {
  const t = await startTestService({ db, speed });
  cleanups.push(() => t.close());
  return { t, seen: new Collected(t.svc.bus) };
}

function dbFile(): string {
  const tmp = tempDir();
  cleanups.push(tmp.remove);
  return join(tmp.dir, 'meterstack.db');
}

describe('clock events', () => {
  it('every advance → clock.advanced from/to; a speed → clock.speed with what it was', async () => {
    const { t, seen } = await serve(dbFile(), 0);
    const before = t.svc.world.clock.now();
    ok(await t.sim('POST', '/clock/advance', { seconds: 3600 }));
    ok(await t.sim('POST', '/clock/advance', { seconds: 0 }));
    const jumps = seen.of('clock.advanced');
    expect(jumps.map((e) => e.data.to - e.data.from)).toEqual([3_600_000, 0]);
    expect(jumps[0]!.data.from).toBe(before);
    expect(jumps[0]!.vt).toBe(jumps[0]!.data.to);

    expect(ok(await t.sim('POST', '/clock/speed', { speed: 60 }))).toEqual({ speed: 60 });
    expect(seen.of('clock.speed').map((e) => e.data)).toEqual([{ speed: 60, was: 0 }]);
    expect(ok(await t.sim<{ speed: number }>('GET', '/clock')).speed).toBe(60);
    ok(await t.sim('POST', '/clock/speed', { speed: 0.5 }));
    expect(seen.of('clock.speed')[1]!.data).toEqual({ speed: 0.5, was: 60 });
    expect(seen.invalid).toEqual([]);
  });

  it('bad speeds are validation_error in the envelope, without the token 401; nothing emitted', async () => {
    const { t, seen } = await serve(dbFile(), 0);
    for (const body of [{ speed: -1 }, { speed: 'fast' }, {}, { speed: 2, extra: 1 }, { speed: 2e6 }]) {
      const res = await t.sim('POST', '/clock/speed', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error?.code).toBe('validation_error');
    }
    const anon = await t.sim('POST', '/clock/speed', { speed: 2 }, { token: null });
    expect(anon.status).toBe(401);
    expect(seen.of('clock.speed')).toEqual([]);
    expect(t.svc.world.clock.speed).toBe(0);
  });

  it('the speed survives a restart unless the restart names one', async () => {
    const db = dbFile();
    const first = await serve(db, 0);
    ok(await first.t.sim('POST', '/clock/speed', { speed: 30 }));
    await first.t.close();
    const second = await serve(db);
    expect(second.t.svc.world.clock.speed).toBe(30);
    await second.t.close();
    const third = await serve(db, 2);
    expect(third.t.svc.world.clock.speed).toBe(2);
  });
});
