// Snapshot files as hostile input (issue 18 items 4-5), through the real service on both stores: a file
// with any schema object this build does not make, or one it lacks or changed, is refused at import
// with 422 naming what is wrong and no server path, and nothing of it ever runs [SNAP-1] [SNAP-2]; a
// file of absurd values (clock, speed, NaN-ish text, balances beyond bounds, a ledger that does not sum)
// is refused before the world is touched, which stays exactly as it was [SNAP-3] [SNAP-4] [SNAP-5].

import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_TRIGGERS_SQLITE } from '../../src/store/world-tables.ts';
import { dbBackends, freshDb, queryDb } from '../helpers/db.ts';
import { ADMIN_TOKEN, ok, startTestService, type TestService, tempDir } from '../helpers/service.ts';
import { failed, invalid, type Tenant, tenant, type V2Response } from '../helpers/v2.ts';

const START = Date.parse('2026-01-01T00:00:00+05:30');
const YEAR_2200 = Date.UTC(2200, 0, 1);

/** A change made to a copy of a good export, and a word the refusal must name. */
interface Probe {
  label: string;
  sql: string;
  names: RegExp;
}

/** With the ledger's own triggers off while the file is edited, then made again exactly as they were. */
const ledgerEdit = (sql: string) =>
  `DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete; ${sql}; ${LEDGER_TRIGGERS_SQLITE}`;

/** [SNAP-2] Schema objects the build does not make, lacks, or changed. */
const SCHEMA_PROBES: Probe[] = [
  {
    label: 'a trigger that skims 1,000 paise off every ledger row',
    sql: 'CREATE TRIGGER skim AFTER INSERT ON ledger BEGIN UPDATE ledger SET amount = amount - 1000 WHERE seq = NEW.seq; END',
    names: /extra trigger skim/,
  },
  {
    label: 'a trigger that un-revokes a key',
    sql: 'CREATE TRIGGER unrevoke AFTER UPDATE OF revoked_at ON api_keys BEGIN UPDATE api_keys SET revoked_at = NULL WHERE key_hash = NEW.key_hash; END',
    names: /extra trigger unrevoke/,
  },
  {
    label: 'a trigger on the meta row the old import updated',
    sql: "CREATE TRIGGER renamed AFTER UPDATE ON world_snapshot BEGIN INSERT INTO settings VALUES ('fired', 'yes'); END",
    names: /extra trigger renamed/,
  },
  {
    label: 'a cross-join trigger (the 1.9 s freeze)',
    sql: 'CREATE TRIGGER slow AFTER UPDATE ON world_snapshot BEGIN SELECT count(*) FROM samples a, samples b, samples c; END',
    names: /extra trigger slow/,
  },
  { label: 'a view', sql: 'CREATE VIEW v AS SELECT * FROM devices', names: /extra view v/ },
  { label: 'an index', sql: 'CREATE INDEX by_energy ON samples (energy)', names: /extra index by_energy/ },
  { label: 'a table', sql: 'CREATE TABLE stash (a TEXT)', names: /extra table stash/ },
  {
    label: 'a column',
    sql: 'ALTER TABLE devices ADD COLUMN evil TEXT',
    names: /column devices\.evil is extra/,
  },
  {
    label: 'a missing column',
    sql: 'ALTER TABLE samples_1d DROP COLUMN balance',
    names: /column samples_1d\.balance is missing/,
  },
  {
    label: 'a changed column type',
    sql: "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'amount BIGINT NOT NULL', 'amount TEXT NOT NULL') WHERE name = 'ledger'",
    names: /column ledger\.amount is TEXT NOT NULL, not BIGINT NOT NULL/,
  },
  {
    label: "the ledger's append-only triggers dropped",
    sql: 'DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete',
    names: /missing trigger ledger_no_(update|delete)/,
  },
  {
    label: 'an append-only trigger that no longer refuses',
    sql: 'DROP TRIGGER ledger_no_update; CREATE TRIGGER ledger_no_update BEFORE UPDATE ON ledger BEGIN SELECT 1; END',
    names: /trigger ledger_no_update differs/,
  },
];

/** [SNAP-3] [SNAP-4] Values no client could have set through the live routes. */
const VALUE_PROBES: Probe[] = [
  { label: 'a clock of year 2200', sql: `UPDATE world_snapshot SET clock = ${YEAR_2200}`, names: /clock/ },
  { label: 'clock = 9e15', sql: 'UPDATE world_snapshot SET clock = 9e15', names: /clock/ },
  { label: 'clock as text', sql: "UPDATE world_snapshot SET clock = 'soon'", names: /world_snapshot\.clock/ },
  { label: 'a speed of -1000', sql: 'UPDATE world_snapshot SET speed = -1000', names: /speed -1000/ },
  { label: 'a speed of 1e12', sql: 'UPDATE world_snapshot SET speed = 1e12', names: /speed 1000000000000/ },
  {
    label: 'an infinite speed',
    sql: 'UPDATE world_snapshot SET speed = 9e999',
    names: /world_snapshot\.speed/,
  },
  {
    label: "'NaN' in a reading",
    sql: "UPDATE samples SET energy = 'NaN' WHERE ts = (SELECT min(ts) FROM samples)",
    names: /samples\.energy holds 'NaN'/,
  },
  {
    label: 'an infinite voltage in a rollup',
    sql: 'UPDATE samples_15m SET voltage = 9e999',
    names: /samples_15m\.voltage/,
  },
  {
    label: 'text in an integer key',
    sql: "UPDATE samples SET ts = 'later' WHERE ts = (SELECT max(ts) FROM samples)",
    names: /samples\.ts holds 'later'/,
  },
  {
    label: 'an opening balance of -10^12 paise',
    sql: ledgerEdit("UPDATE ledger SET amount = -1000000000000 WHERE kind = 'opening'"),
    names: /opening\) of -1000000000000 paise is out of bounds/,
  },
  {
    label: 'a ledger that does not sum (a credit the meter never had)',
    sql: "INSERT INTO ledger (seq, device_pk, kind, amount, transaction_id, created_at) SELECT 0, pk, 'recharge', 5000, 'forged', 0 FROM devices",
    names: /disagrees with its ledger/,
  },
  {
    label: 'a ledger entry of no device',
    sql: "INSERT INTO ledger (device_pk, kind, amount, transaction_id, created_at) VALUES (999, 'recharge', 5, 'x', 0)",
    names: /ledger row \d+ refers to a missing devices row/,
  },
  {
    label: "a meter state that is another device's",
    sql: `UPDATE meter_snapshots SET state = replace(state, (SELECT device_id FROM devices LIMIT 1), 'MTR-OTHER')`,
    names: /its state is of device MTR-OTHER|of no virtual device|cannot be read/,
  },
  {
    label: 'a meter state that is garbage',
    sql: "UPDATE meter_snapshots SET state = '{'",
    names: /cannot be read/,
  },
  { label: 'no meta row', sql: 'DELETE FROM world_snapshot', names: /world_snapshot holds 0 rows/ },
  {
    label: 'two meta rows',
    sql: 'INSERT INTO world_snapshot SELECT * FROM world_snapshot',
    names: /world_snapshot holds 2 rows/,
  },
];

const raw = (t: TestService, method: string, path: string, body?: Uint8Array) =>
  fetch(`${t.svc.httpUrl}/sim/v1${path}`, {
    method,
    headers: {
      'x-admin-token': ADMIN_TOKEN,
      ...(body ? { 'content-type': 'application/octet-stream' } : {}),
    },
    body,
  }).then(
    async (res) => ({ status: res.status, headers: res.headers, body: await res.json() }) as V2Response,
  );

describe.each(await dbBackends())('hostile snapshot files on $name', ({ name }) => {
  let t: TestService;
  let a: Tenant;
  let remove: () => Promise<void>;
  let good: Buffer;
  const files = tempDir('meterstack-hostile-');
  let n = 0;

  beforeAll(async () => {
    const fresh = await freshDb(name);
    remove = fresh.remove;
    t = await startTestService({ db: fresh.db, speed: 0, clockStart: START });
    a = await tenant(t.sim, { balance: 2_500, load_watts: 500, backfill_days: 1 });
    ok(await t.sim('POST', '/clock/advance', { seconds: 3600 }));
    ok(await t.sim('POST', '/snapshots', { name: 'good' }), 201);
    const res = await fetch(`${t.svc.httpUrl}/sim/v1/snapshots/good/export`, {
      headers: { 'x-admin-token': ADMIN_TOKEN },
    });
    good = Buffer.from(await res.arrayBuffer());
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await remove?.();
    files.remove();
  });

  /** A copy of the good export with `sql` run on it (by the test, never by the service). */
  const edited = (sql: string): Buffer => {
    const file = join(files.dir, `probe-${n++}.sqlite`);
    writeFileSync(file, good);
    const db = new Database(file);
    db.unsafeMode(true); // writable_schema, as an attacker's own sqlite3 would allow
    db.pragma('foreign_keys = OFF');
    db.exec(sql);
    db.close();
    return readFileSync(file);
  };

  /** What an observer sees of the world: the clock, the meter, its ledger, the snapshots, the schema. */
  const world = async () => ({
    clock: ok(await t.sim<{ now_ms: number }>('GET', '/clock')).now_ms,
    meter: ok(await t.sim<{ balance: number; online: boolean }>('GET', `/devices/${a.deviceId}`)),
    ledger: ok(await t.sim('GET', '/ledger')),
    snapshots: await raw(t, 'GET', '/snapshots').then((r) => ({ status: r.status, data: r.body.data })),
    triggers: await liveTriggers(),
  });
  const liveTriggers = async () =>
    name === 'sqlite'
      ? await queryDb(t.db, "SELECT name FROM sqlite_schema WHERE type IN ('trigger', 'view') ORDER BY name")
      : await queryDb(
          t.db,
          `SELECT t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
           JOIN pg_namespace s ON s.oid = c.relnamespace
           WHERE s.nspname = current_schema() AND NOT t.tgisinternal ORDER BY 1`,
        );

  /** The refusal's words: it names `names` and no path of this server. */
  const refusedAtImport = async (p: Probe) => {
    const res = await raw(t, 'POST', `/snapshots/import?name=probe-${n}`, edited(p.sql));
    const items = invalid(res);
    const words = items.map((i) => i.msg).join(' ');
    expect(words, p.label).toMatch(p.names);
    for (const path of [tmpdir(), files.dir, t.db, '/tmp', '.sqlite'])
      expect(words, `${p.label} names a server path`).not.toContain(path);
    return words;
  };

  it('a file with a schema object this build does not make, lacks or changed: 422 at import naming it, and nothing of it kept or run [SNAP-1] [SNAP-2]', async () => {
    const before = await world();
    for (const p of SCHEMA_PROBES) await refusedAtImport(p);
    expect(await world()).toEqual(before);
    // A recharge now: no skim, no foreign trigger in the live store.
    ok(
      await t.sim('POST', `/devices/${a.deviceId}/recharge`, {
        amount: 2_000,
        transaction_id: 'after-probes',
      }),
    );
    const rows = await queryDb<{ amount: number }>(
      t.db,
      "SELECT amount FROM ledger WHERE transaction_id = 'after-probes'",
    );
    expect(rows.map((r) => Number(r.amount))).toEqual([2_000]);
    expect((await liveTriggers()).map((r) => (r as { name: string }).name).sort()).toEqual(
      name === 'sqlite'
        ? ['ledger_no_delete', 'ledger_no_update']
        : ['ledger_no_truncate', 'ledger_no_update'],
    );
  }, 120_000);

  it('a file of absurd values: 422 at import naming the value, the world exactly as before, GET /snapshots still 200 [SNAP-3] [SNAP-4] [SNAP-5]', async () => {
    const before = await world();
    for (const p of VALUE_PROBES) await refusedAtImport(p);
    const after = await world();
    expect(after).toEqual(before);
    expect(after.snapshots.status).toBe(200);
    expect((after.snapshots.data as { name: string }[]).map((s) => s.name)).toEqual(['good']);
  }, 120_000);

  it('broken files: cut in half, a malformed schema, a UTF-16 database, empty: 422, never a 500 [SNAP-1]', async () => {
    const before = await world();
    const utf16 = join(files.dir, 'utf16.sqlite');
    const u = new Database(utf16);
    u.pragma("encoding = 'UTF-16le'");
    u.exec('CREATE TABLE world_snapshot (name TEXT)');
    u.close();
    const bodies: [string, Buffer][] = [
      ['cut in half', good.subarray(0, Math.floor(good.length / 2))],
      [
        'a malformed schema',
        edited(
          "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE TABLE (' WHERE name = 'spaces'",
        ),
      ],
      ['UTF-16', readFileSync(utf16)],
      ['one byte', Buffer.from([0])],
    ];
    for (const [label, body] of bodies) {
      const res = await raw(t, 'POST', `/snapshots/import?name=broken-${n++}`, body);
      expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(JSON.stringify(res.body)).not.toContain(tmpdir());
    }
    expect(await world()).toEqual(before);
  }, 60_000);

  it('the good file still goes in and restores: the checks refuse only what is wrong', async () => {
    const res = await raw(t, 'POST', '/snapshots/import?name=good-again', good);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ok(await t.sim('POST', '/snapshots/good-again/restore'));
    expect(ok(await t.sim<{ online: boolean }>('GET', `/devices/${a.deviceId}`)).online).toBe(true);
  }, 60_000);

  it.runIf(name === 'sqlite')(
    'a file an earlier build took in unchecked: the restore refuses it before the world is touched, and its trigger never runs [SNAP-1] [SNAP-4]',
    async () => {
      const before = await world();
      const planted = [
        ['skim', SCHEMA_PROBES[0]!.sql],
        ['y2200', VALUE_PROBES[0]!.sql],
        ['backwards', VALUE_PROBES[3]!.sql],
      ] as const;
      for (const [label, sql] of planted) {
        const file = join(files.dir, `${label}.sqlite`);
        writeFileSync(file, edited(sql));
        copyFileSync(file, join(`${t.db}.snapshots`, `${label}.sqlite`));
        invalid(await raw(t, 'POST', `/snapshots/${label}/restore`));
      }
      const after = await world();
      expect({ ...after, snapshots: null }).toEqual({ ...before, snapshots: null });
      expect(after.snapshots.status).toBe(200);
      ok(
        await t.sim('POST', `/devices/${a.deviceId}/recharge`, {
          amount: 1_000,
          transaction_id: 'after-plant',
        }),
      );
      const rows = await queryDb<{ amount: number }>(
        t.db,
        "SELECT amount FROM ledger WHERE transaction_id = 'after-plant'",
      );
      expect(rows.map((r) => Number(r.amount))).toEqual([1_000]);
      failed(await raw(t, 'POST', '/snapshots/nope/restore'), 404, 'not_found');
    },
    60_000,
  );
});
