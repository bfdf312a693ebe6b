// A snapshot file written by an earlier build outlives the upgrade [SNAP-10]: a file at schema version 7
// (the first build that wrote world snapshots: no credit_receipts, no api_keys.wall_expires_at) is
// taken when its schema is exactly what this build's migrations made at that version, and its rows come
// back into today's schema (a column added since takes its default, a table added since starts empty).
// A file of a version this build never made, or older than snapshots, is refused naming its version.
// Both stores, through the real service.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbBackends, freshDb, queryDb } from '../helpers/db.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { invalid, type Tenant, tenant, type V2Response, v2Client } from '../helpers/v2.ts';

const START = Date.parse('2026-01-01T00:00:00+05:30');

const post = (t: TestService, path: string, body: Uint8Array) =>
  fetch(`${t.svc.httpUrl}/sim/v1${path}`, {
    method: 'POST',
    headers: { 'x-admin-token': ADMIN_TOKEN, 'content-type': 'application/octet-stream' },
    body,
  }).then(
    async (res) => ({ status: res.status, headers: res.headers, body: await res.json() }) as V2Response,
  );

describe.each(await dbBackends())('a snapshot file of an earlier build on $name [SNAP-10]', ({ name }) => {
  let t: TestService;
  let a: Tenant;
  let remove: () => Promise<void>;
  let v7: Buffer;
  const files = tempDir('meterstack-older-');

  /** Today's export taken back to schema version 7, as the build before issue 18 wrote it. */
  const asVersion7 = (file: string) => {
    const db = new Database(file);
    db.exec(`DROP INDEX credit_receipts_device; DROP TABLE credit_receipts;
      ALTER TABLE api_keys DROP COLUMN wall_expires_at;
      DELETE FROM schema_migrations WHERE version > 7;`);
    db.close();
    return readFileSync(file);
  };

  beforeAll(async () => {
    const fresh = await freshDb(name);
    remove = fresh.remove;
    t = await startTestService({ db: fresh.db, speed: 0, clockStart: START });
    a = await tenant(t.sim, { balance: 2_500, load_watts: 500 });
    ok(await t.sim('POST', '/clock/advance', { seconds: 3600 }));
    ok(await t.sim('POST', '/snapshots', { name: 'now' }), 201);
    const res = await fetch(`${t.svc.httpUrl}/sim/v1/snapshots/now/export`, {
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });
    const file = join(files.dir, 'v7.sqlite');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    v7 = asVersion7(file);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await remove?.();
    files.remove();
  });

  it('is imported and restored: the world, its balances and its keys come back into today’s schema', async () => {
    const before = ok(await t.sim<{ balance: number }>('GET', `/devices/${a.deviceId}`)).balance;
    const clock = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
    expect((await post(t, '/snapshots/import?name=v7', v7)).status).toBe(201);
    // The world moves on, then goes back to what the old file held.
    ok(await t.sim('POST', `/devices/${a.deviceId}/recharge`, { amount: 1_000, transaction_id: 'later' }));
    ok(await t.sim('POST', '/clock/advance', { seconds: 3600 }));
    ok(await t.sim('POST', '/snapshots/v7/restore'));
    expect(ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms).toBe(clock);
    expect(ok(await t.sim<{ balance: number }>('GET', `/devices/${a.deviceId}`)).balance).toBe(before);
    expect((await v2Client(t.svc.httpUrl, a.key)('GET', '/spaces/')).status).toBe(200);
    const keys = await queryDb<{ wall_expires_at: number | null }>(
      t.db,
      'SELECT wall_expires_at FROM api_keys',
    );
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.wall_expires_at === null)).toBe(true);
    expect(await queryDb(t.db, 'SELECT * FROM credit_receipts')).toEqual([]);
    const check = ok(await t.sim<{ disagreements: unknown[] }>('GET', '/ledger'));
    expect(check.disagreements).toEqual([]);
  }, 60_000);

  it('a file of version 6, or of a version this build never made, is refused naming its version', async () => {
    const older = join(files.dir, 'v6.sqlite');
    writeFileSync(older, v7);
    const six = new Database(older);
    six.exec('DELETE FROM schema_migrations WHERE version > 6');
    six.close();
    const v6 = readFileSync(older);
    const refused6 = invalid(await post(t, '/snapshots/import?name=v6', v6))
      .map((i) => i.msg)
      .join(' ');
    expect(refused6).toMatch(/schema version 6; this build restores versions 7 to \d+/);
    const newer = join(files.dir, 'v99.sqlite');
    writeFileSync(newer, v7);
    const db = new Database(newer);
    db.prepare("INSERT INTO schema_migrations VALUES (99, 'from the future', 0)").run();
    db.close();
    const refused99 = invalid(await post(t, '/snapshots/import?name=v99', readFileSync(newer)))
      .map((i) => i.msg)
      .join(' ');
    expect(refused99).toMatch(/schema version 99, newer than this build knows/);
  });

  it('a version-7 file with today’s table in it is not a version-7 file: refused naming it [SNAP-2]', async () => {
    const mixed = join(files.dir, 'mixed.sqlite');
    writeFileSync(mixed, v7);
    const db = new Database(mixed);
    db.exec('CREATE TABLE credit_receipts (ledger_seq INTEGER PRIMARY KEY)');
    db.close();
    const words = invalid(await post(t, '/snapshots/import?name=mixed', readFileSync(mixed)))
      .map((i) => i.msg)
      .join(' ');
    expect(words).toMatch(/extra table credit_receipts/);
  });
});
