// A key with a wall-clock life (`ttl_seconds`, the console's session keys, issue 18 item 10) on both
// stores, through real HTTP: refused when expired or revoked exactly as an unknown key is (spec 5.4,
// spec-decisions 22), untouched by virtual clock jumps, and bound to its one account. [CON-4]

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbBackends, freshDb, queryDb } from '../helpers/db.ts';
import { ok, startTestService, type TestService } from '../helpers/service.ts';
import { type Tenant, tenant, type V2, v2Client } from '../helpers/v2.ts';

interface Minted {
  api_key: string;
  expires_at: string | null;
  wall_expires_at: string | null;
}

describe.each(await dbBackends())('wall-clock key expiry on $name [CON-4]', ({ name: backend }) => {
  let t: TestService;
  let v2: V2;
  let removeDb: () => Promise<void> = async () => {};
  let mine: Tenant;
  let theirs: Tenant;
  let db: string;

  beforeAll(async () => {
    const fresh = await freshDb(backend);
    removeDb = fresh.remove;
    db = fresh.db;
    t = await startTestService({ db, speed: 0 });
    v2 = v2Client(t.svc.httpUrl);
    [mine, theirs] = await Promise.all([tenant(t.sim), tenant(t.sim)]);
  });
  afterAll(async () => {
    await t?.close();
    await removeDb();
  });

  const mint = async (body: Record<string, unknown>, account = mine.accountId) =>
    ok(await t.sim<Minted>('POST', `/accounts/${account}/keys`, body));
  /** What an unknown key is answered: the one answer for every refused key. */
  const refusal = async () => {
    const r = await v2('GET', '/spaces/', undefined, 'msk_no_such_key');
    expect(r.status).toBe(401);
    return r.body.error;
  };

  it('[CON-4] a ttl key works at once and says when it ends on the wall clock', async () => {
    const before = Date.now();
    const k = await mint({ ttl_seconds: 3600 });
    expect(k.expires_at).toBeNull();
    const ends = Date.parse(k.wall_expires_at!);
    expect(ends).toBeGreaterThanOrEqual(before + 3_600_000 - 1000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 3_600_000 + 1000);
    expect((await v2('GET', '/spaces/', undefined, k.api_key)).status).toBe(200);
    const [row] = await queryDb<{ wall_expires_at: number; expires_at: number | null }>(
      db,
      'SELECT wall_expires_at, expires_at FROM api_keys WHERE account_id = ? AND wall_expires_at IS NOT NULL',
      [mine.accountId],
    );
    expect(row!.expires_at).toBeNull();
    expect(Math.abs(row!.wall_expires_at - ends)).toBeLessThan(1000);
  });

  it('[CON-4] probe: a ttl key expired on the wall clock is refused as an unknown key is', async () => {
    const minted = Date.now();
    const k = await mint({ ttl_seconds: 3 });
    expect((await v2('GET', '/spaces/', undefined, k.api_key)).status).toBe(200); // cached as valid
    await new Promise((r) => setTimeout(r, minted + 3100 - Date.now()));
    const r = await v2('GET', '/spaces/', undefined, k.api_key);
    expect(r.status).toBe(401);
    expect(r.body.error).toEqual(await refusal());
    // Its device is as closed to it as any other route.
    expect((await v2('GET', `/devices/${mine.deviceId}/metrics`, undefined, k.api_key)).status).toBe(401);
  });

  it('[CON-4] probe: virtual clock jumps neither end nor revive a wall-clock key', async () => {
    const k = await mint({ ttl_seconds: 3600 });
    ok(await t.sim('POST', '/clock/advance', { seconds: 86_400 }));
    expect((await v2('GET', '/spaces/', undefined, k.api_key)).status).toBe(200);
    ok(await t.sim('POST', '/clock/advance', { seconds: 30 * 86_400 }));
    expect((await v2('GET', `/devices/${mine.deviceId}/metrics`, undefined, k.api_key)).status).toBe(200);
    // And a dead one stays dead after a jump.
    const short = await mint({ ttl_seconds: 1 });
    await new Promise((r) => setTimeout(r, 1100));
    ok(await t.sim('POST', '/clock/advance', { seconds: 3600 }));
    expect((await v2('GET', '/spaces/', undefined, short.api_key)).status).toBe(401);
  });

  it('probe: the virtual expiry still ends a key (spec-decisions 34), with or without a ttl', async () => {
    const now = ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms;
    const at = new Date(now + 3_600_000).toISOString();
    const both = await mint({ expires_at: at, ttl_seconds: 86_400 });
    expect(both.wall_expires_at).not.toBeNull();
    expect((await v2('GET', '/spaces/', undefined, both.api_key)).status).toBe(200);
    ok(await t.sim('POST', '/clock/advance', { seconds: 7200 }));
    expect((await v2('GET', '/spaces/', undefined, both.api_key)).status).toBe(401);
  });

  it('[CON-4] probe: a revoked ttl key is refused as an unknown key is, at once', async () => {
    const k = await mint({ ttl_seconds: 3600 });
    expect((await v2('GET', '/spaces/', undefined, k.api_key)).status).toBe(200);
    ok(await t.sim('DELETE', `/keys/${encodeURIComponent(k.api_key)}`));
    const r = await v2('GET', '/spaces/', undefined, k.api_key);
    expect(r.status).toBe(401);
    expect(r.body.error).toEqual(await refusal());
    expect((await t.sim('DELETE', `/keys/${encodeURIComponent(k.api_key)}`)).status).toBe(404);
  });

  it('[CON-4] probe: a ttl key sees its own account only (every key is its tenant’s)', async () => {
    const k = await mint({ ttl_seconds: 3600 });
    const own = await v2('GET', `/devices/${mine.deviceId}/metrics`, undefined, k.api_key);
    expect(own.status).toBe(200);
    const other = await v2('GET', `/devices/${theirs.deviceId}/metrics`, undefined, k.api_key);
    expect(other.body.error?.code).toBe('device_not_found');
    const relay = await v2('PUT', `/devices/${theirs.deviceId}/relay`, { state: false }, k.api_key);
    expect(relay.body.error?.code).toBe('device_not_found');
    const space = await v2('GET', `/spaces/${theirs.spaceId}`, undefined, k.api_key);
    expect(space.body.success).toBe(false);
  });

  it('[CON-4] probe: a console key is no admin token, and a restore keeps a key’s wall expiry', async () => {
    const k = await mint({ ttl_seconds: 600 });
    const asAdmin = await t.sim('GET', '/clock', undefined, { token: k.api_key });
    expect(asAdmin.status).toBe(401);
    expect(asAdmin.body.error?.code).toBe('admin_authentication_error');
    // A world snapshot holds keys as they are (spec-decisions 110); restored, however far back the
    // restore sets the virtual clock, the key keeps its wall expiry (what ends it: checked above).
    const ends = async () =>
      (
        await queryDb<{ wall_expires_at: number }>(
          db,
          'SELECT wall_expires_at FROM api_keys WHERE account_id = ? AND wall_expires_at IS NOT NULL ORDER BY created_at DESC LIMIT 1',
          [mine.accountId],
        )
      )[0]!.wall_expires_at;
    const before = await ends();
    ok(await t.sim('POST', '/snapshots', { name: `keys-${backend}` }), 201);
    ok(await t.sim('POST', '/clock/advance', { seconds: 86_400 }));
    ok(await t.sim('POST', `/snapshots/keys-${backend}/restore`));
    expect(await ends()).toBe(before);
    expect((await v2('GET', '/spaces/', undefined, k.api_key)).status).toBe(200);
  });

  it('[SNAP-9] probe: a key revoked after a snapshot (the console’s logout) stays revoked when it is restored', async () => {
    const k = await mint({ ttl_seconds: 3600 });
    const kept = await mint({ ttl_seconds: 3600 });
    ok(await t.sim('POST', '/snapshots', { name: `revoked-${backend}` }), 201);
    ok(await t.sim('DELETE', `/keys/${encodeURIComponent(k.api_key)}`));
    ok(await t.sim('POST', `/snapshots/revoked-${backend}/restore`));
    const r = await v2('GET', '/spaces/', undefined, k.api_key);
    expect(r.status).toBe(401);
    expect(r.body.error).toEqual(await refusal());
    // Only the revocation is carried over: a key live in both the snapshot and now still works.
    expect((await v2('GET', '/spaces/', undefined, kept.api_key)).status).toBe(200);
  });

  it('probe: ttl_seconds outside 1..604800 or not an integer is a validation_error, and mints nothing', async () => {
    const count = async () =>
      (
        await queryDb<{ n: number }>(db, 'SELECT count(*) AS n FROM api_keys WHERE account_id = ?', [
          mine.accountId,
        ])
      )[0]!.n;
    const before = await count();
    for (const ttl of [0, -1, 604_801, 1.5, '60', null, 1e300]) {
      const r = await t.sim('POST', `/accounts/${mine.accountId}/keys`, { ttl_seconds: ttl });
      expect(r.status, `ttl_seconds ${String(ttl)}`).toBe(422);
      expect(r.body.error?.code).toBe('validation_error');
    }
    expect((await t.sim('POST', '/accounts/999999/keys', { ttl_seconds: 60 })).status).toBe(404);
    expect(await count()).toBe(before);
  });
});
