// [SNAP-8] Virtual meters' MQTT passwords are derived from a meter key outside the database, never
// stored (issue 18 item 7), on both stores: an exported snapshot holds nothing a client logs in with;
// meters connect again after an import and restore into another service (another key) and after a
// restart; a database an earlier build wrote, with plain passwords in its meter snapshots, starts, its
// passwords dropped and dead.

import { createHash } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestClients } from '../../src/broker/test-helpers.ts';
import { dbBackends, freshDb, queryDb } from '../helpers/db.ts';
import { skipWithoutMosquitto, startMosquitto } from '../helpers/mosquitto.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { type Tenant, tenant } from '../helpers/v2.ts';

const START = Date.parse('2026-01-01T00:00:00+05:30');
const BAD_PASSWORD = 4; // the embedded broker's CONNACK for a refused login

/** Every string in a snapshot file: each text value, and each string inside JSON ones, at any depth. */
function strings(file: string): Set<string> {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') {
      found.add(v);
      try {
        walk(JSON.parse(v));
      } catch {}
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
      .pluck()
      .all() as string[];
    for (const t of tables) for (const row of db.prepare(`SELECT * FROM "${t}"`).all()) walk(row);
  } finally {
    db.close();
  }
  return found;
}

/** Whether the virtual meter is connected to its broker (waiting up to 5 s for it). */
async function connected(t: TestService, id: string): Promise<boolean> {
  for (const until = Date.now() + 5_000; ; await new Promise((r) => setTimeout(r, 50))) {
    const m = ok(await t.sim<{ online: boolean; connected: boolean }>('GET', `/devices/${id}`));
    if ((m.online && m.connected) || Date.now() > until) return m.online && m.connected;
  }
}

/** Runs SQL on a stopped service's store (the test playing an earlier build). */
async function writeDb(db: string, sql: string): Promise<void> {
  if (!db.startsWith('postgres')) {
    const s = new Database(db);
    s.exec(sql);
    s.close();
    return;
  }
  const url = new URL(db);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const c = new pg.Client({ connectionString: url.toString() });
  await c.connect();
  try {
    await c.query(`SET search_path = ${schema}; ${sql}`);
  } finally {
    await c.end();
  }
}

describe.each(await dbBackends())("virtual meters' MQTT passwords on $name [SNAP-8]", ({ name }) => {
  const removes: (() => Promise<void> | void)[] = [];
  const clients: TestClients[] = [];
  let t: TestService;
  let a: Tenant;
  let file: string;

  const start = async (db?: string) => {
    const fresh = db ? null : await freshDb(name);
    if (fresh) removes.push(fresh.remove);
    return startTestService({ db: db ?? fresh!.db, speed: 0, clockStart: START });
  };
  const online = connected;
  const refused = (s: TestService, username: string, password: string) => {
    const c = new TestClients(s.svc.mqttUrl);
    clients.push(c);
    return c.refused({ clientId: username, username, password });
  };

  beforeAll(async () => {
    t = await start();
    a = await tenant(t.sim, { balance: 2_500, load_watts: 500 });
    ok(await t.sim('POST', '/snapshots', { name: 'base' }), 201);
    const dir = tempDir('meterstack-secrets-');
    removes.push(dir.remove);
    file = join(dir.dir, 'base.sqlite');
    const res = await fetch(`${t.svc.httpUrl}/sim/v1/snapshots/base/export`, {
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  }, 60_000);
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAll()));
  });
  afterAll(async () => {
    await t?.close();
    for (const r of removes.reverse()) await r();
  });

  it('an export holds no usable secret: the password is nowhere in it, and nothing in it logs in as the meter', async () => {
    expect(readFileSync(file).includes(Buffer.from(a.mqtt.password))).toBe(false);
    const candidates = [...strings(file)].filter((s) => s.length >= 8 && s.length <= 200);
    expect(candidates.length).toBeGreaterThan(5);
    for (const password of candidates)
      expect(await refused(t, a.deviceId, password), password.slice(0, 40)).toBe(BAD_PASSWORD);
    expect(await online(t, a.deviceId)).toBe(true);
    // Nor in the live store: only its hash is there.
    const states = await queryDb<{ state: string }>(t.db, 'SELECT state FROM meter_snapshots');
    expect(states.some((r) => r.state.includes(a.mqtt.password) || r.state.includes('"secret"'))).toBe(false);
  }, 60_000);

  it('imported and restored into another service (another key), the meter connects; and again after a restart', async () => {
    let u = await start();
    const res = await fetch(`${u.svc.httpUrl}/sim/v1/snapshots/import?name=moved`, {
      method: 'POST',
      headers: { 'x-admin-token': ADMIN_TOKEN, 'content-type': 'application/octet-stream' },
      body: readFileSync(file),
    });
    expect(res.status).toBe(201);
    ok(await u.sim('POST', '/snapshots/moved/restore'));
    expect(await online(u, a.deviceId)).toBe(true);
    // Its login there is that service's: the first service's password does not open it.
    expect(await refused(u, a.deviceId, a.mqtt.password)).toBe(BAD_PASSWORD);
    const db = u.db;
    await u.svc.close();
    u = await start(db);
    try {
      expect(await online(u, a.deviceId)).toBe(true);
    } finally {
      await u.close();
    }
  }, 90_000);

  it('a store an earlier build wrote (a plain password in the meter snapshot) starts; the password is dropped and refused', async () => {
    const u = await start();
    const b = await tenant(u.sim, { balance: 1_000 });
    const db = u.db;
    await u.svc.close();
    const old = 'mqs_plain-password-of-an-earlier-build';
    const hash = createHash('sha256').update(old).digest('hex');
    const json =
      name === 'sqlite'
        ? "json_set(state, '$.secret', '" + old + "')"
        : `jsonb_set(state::jsonb, '{secret}', '"${old}"')::text`;
    await writeDb(
      db,
      `UPDATE meter_snapshots SET state = ${json}; UPDATE devices SET mqtt_secret_hash = '${hash}' WHERE device_id = '${b.deviceId}';`,
    );
    expect((await queryDb<{ state: string }>(db, 'SELECT state FROM meter_snapshots'))[0]!.state).toContain(
      old,
    );
    const again = await start(db);
    try {
      expect(await online(again, b.deviceId)).toBe(true);
      const states = await queryDb<{ state: string }>(db, 'SELECT state FROM meter_snapshots');
      expect(states.some((r) => r.state.includes(old))).toBe(false);
      expect(await refused(again, b.deviceId, old)).toBe(BAD_PASSWORD);
    } finally {
      await again.close();
    }
  }, 90_000);

  it.runIf(name === 'sqlite')(
    'the meter key is a file beside the database, mode 0600, outside its snapshots',
    () => {
      const key = `${t.db}.meter-key`;
      expect(statSync(key).mode & 0o777).toBe(0o600);
      expect(readFileSync(file).includes(Buffer.from(readFileSync(key, 'utf8').trim()))).toBe(false);
    },
  );
});

describe('a broker that keeps logins itself (Mosquitto, dynamic security) [SNAP-8]', () => {
  it.skipIf(skipWithoutMosquitto)(
    'a meter key changed between two starts: the meter login is set to the new password and the meter connects',
    async () => {
      const mosquitto = await startMosquitto({});
      const dir = tempDir('meterstack-dynsec-key-');
      const db = join(dir.dir, 'meterstack.db');
      const config = {
        db,
        broker: mosquitto.brokerUrl,
        brokerLogins: 'dynsec' as const,
        speed: 0,
        clockStart: START,
      };
      try {
        let t = await startTestService({ ...config, meterKey: 'the-first-meter-key' });
        const a = await tenant(t.sim, { balance: 1_000 });
        await t.svc.close();
        t = await startTestService({ ...config, meterKey: 'a-second-meter-key' });
        try {
          expect(await connected(t, a.deviceId)).toBe(true);
          // The first key's password (the one provisioning answered) opens nothing any more.
          const c = new TestClients(mosquitto.url);
          expect(
            await c.refused({ clientId: a.deviceId, username: a.deviceId, password: a.mqtt.password }),
          ).toBe(5);
          await c.endAll();
        } finally {
          await t.svc.close();
        }
      } finally {
        await mosquitto.stop();
        dir.remove();
      }
    },
    90_000,
  );
});
