// Issue 12 §2: world snapshot and restore of 1,000 meters with 30 days of 15-minute history (2.88 M
// samples, their 15-minute and daily rollups), target ≤ 2 s each; beside SQLite's own copies of the same
// file in the same run (the backup API, a plain VACUUM INTO), so the figures are ratios.
// Store level (the rows); the world's part of a restore (stopping and restarting the meters) is not in it.
// Run: npx tsx bench/snapshots.ts [meters=1000] [days=30] [--pg]

import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../src/store/types.ts';
import { tempDir } from '../test/helpers/service.ts';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const METERS = Number(positional[0] ?? 1000);
const DAYS = Number(positional[1] ?? 30);
const PER_DAY = 96;
const START = Date.parse('2026-01-01T00:00:00+05:30');
const Q = 900_000;

async function seed(store: Store): Promise<void> {
  const account = await store.createAccount('bench', START);
  for (let i = 0; i < METERS; i++) {
    const d = await store.createDevice(
      {
        deviceId: `MTR${String(i).padStart(8, '0')}`,
        accountId: account.id,
        spaceId: null,
        name: `m${i}`,
        description: '',
        model: 'basic',
        kind: 'virtual',
        mqttSecretHash: 'x',
        udf1: null,
        udf2: null,
        udf3: null,
        udf4: null,
        udf5: null,
      },
      START,
    );
    await store.appendLedger({
      devicePk: d.pk,
      kind: 'opening',
      amount: 10_000,
      transactionId: null,
      createdAt: START,
    });
    await store.saveMeterSnapshots([{ devicePk: d.pk, state: '{"v":1}', ledgerSeq: 1, updatedAt: START }]);
  }
}

/** The history, straight in SQL (the store's insert path is not what is measured here). */
function history(file: string): void {
  const db = new Database(file);
  const n = DAYS * PER_DAY;
  const cols =
    'device_pk, ts, energy, active_power, voltage, current, power_factor, apparent_power, reactive_power, balance';
  const select = (tsExpr: string) => `
    WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < ${n - 1})
    SELECT d.pk, ${tsExpr}, k.i * 0.2, 800.0 + (k.i % 97), 230.0, NULL, NULL, NULL, NULL, 10000 - k.i
    FROM devices d, k`;
  db.exec(`INSERT INTO samples (${cols}) ${select(`${START} + k.i * ${Q}`)} ORDER BY 1, 2`);
  db.exec(`INSERT INTO samples_15m (device_pk, bucket_start, ts, energy, active_power, voltage, current, power_factor, apparent_power, reactive_power, balance)
    SELECT device_pk, ts, ts, energy, active_power, voltage, current, power_factor, apparent_power, reactive_power, balance FROM samples`);
  db.exec(`INSERT INTO samples_1d (device_pk, bucket_start, ts, energy, active_power, voltage, current, power_factor, apparent_power, reactive_power, balance)
    SELECT device_pk, ${START} + ((ts - ${START}) / 86400000) * 86400000, max(ts), energy, active_power, voltage, current, power_factor, apparent_power, reactive_power, balance
    FROM samples GROUP BY device_pk, (ts - ${START}) / 86400000`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

async function time<T>(fn: () => Promise<T> | T): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

const fmt = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  const { dir, remove } = tempDir('meterstack-bench-snap-');
  try {
    const file = join(dir, 'world.db');
    let store = openSqliteStore({ path: file });
    await seed(store);
    await store.close();
    const filled = await time(() => history(file));
    store = openSqliteStore({ path: file });
    const mb = (f: string) => `${(statSync(f).size / 1024 ** 2).toFixed(0)} MB`;
    console.log(
      `world: ${METERS} meters × ${DAYS} days × ${PER_DAY} = ${(METERS * DAYS * PER_DAY).toLocaleString('en')} samples (+ rollups), ${mb(file)}, made in ${fmt(filled.ms)}`,
    );

    const meta = { createdAt: Date.now(), clock: START + DAYS * 86_400_000, speed: 1 };
    const save = await time(() => store.saveWorldSnapshot('bench', meta));
    console.log(
      `snapshot (store.saveWorldSnapshot)   ${fmt(save.ms)}  ${save.value.readings.toLocaleString('en')} readings, file ${mb(join(`${file}.snapshots`, 'bench.sqlite'))}`,
    );
    const restore = await time(() => store.restoreWorldSnapshot('bench', ['events.seq_reserved']));
    console.log(`restore  (store.restoreWorldSnapshot) ${fmt(restore.ms)}`);
    const restore2 = await time(() => store.restoreWorldSnapshot('bench', ['events.seq_reserved']));
    console.log(`restore again                          ${fmt(restore2.ms)}`);
    await store.close();

    // Peers: SQLite copying the same file its own ways.
    const raw = new Database(file);
    const backupFile = join(dir, 'peer-backup.db');
    const backup = await time(() => raw.backup(backupFile));
    console.log(`peer: better-sqlite3 backup API       ${fmt(backup.ms)}`);
    const vacuumFile = join(dir, 'peer-vacuum.db');
    const vacuum = await time(() => raw.prepare('VACUUM INTO ?').run(vacuumFile));
    console.log(`peer: VACUUM INTO                     ${fmt(vacuum.ms)}`);
    raw.close();
    rmSync(backupFile, { force: true });
    rmSync(vacuumFile, { force: true });
    console.log(
      `ratios: snapshot ${(save.ms / backup.ms).toFixed(2)}× the backup API (what it uses), ${(save.ms / vacuum.ms).toFixed(2)}× VACUUM INTO; restore ${(restore.ms / backup.ms).toFixed(2)}× the backup API`,
    );
    console.log(
      `targets: snapshot ≤ 2 s ${save.ms <= 2000 ? 'met' : 'NOT met'}, restore ≤ 2 s ${restore.ms <= 2000 ? 'met' : 'NOT met'}`,
    );
  } finally {
    remove();
  }
}

await main();
