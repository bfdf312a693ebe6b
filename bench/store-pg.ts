// Issue 11 §3: the PostgreSQL store beside SQLite, same data, same run.
//   (a) ingest rows/s through BatchWriter (one row per add(), as telemetry arrives), and PostgreSQL's
//       two bulk paths for a batch (unnest() arrays, the store's choice, vs COPY into a temp table);
//   (b) history p50/p95: a year at 1d and a day at 15m, on a meter-year of minute samples.
// Run: npx tsx bench/store-pg.ts [--rows 200000] [--devices 100] [--queries 200]
// PostgreSQL: METERSTACK_TEST_PG (default postgres://postgres@127.0.0.1:5432/test), a fresh schema, dropped.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { BatchWriter } from '../src/store/batch-writer.ts';
import { openPostgresStore } from '../src/store/postgres/pg-store.ts';
import { dropSchemas, freshSchemaName, PG_TEST_URL, schemaUrl } from '../src/store/postgres/test-schemas.ts';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { BucketMinutes, SampleRow, Store } from '../src/store/types.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    devices: { type: 'string', default: '100' },
    queries: { type: 'string', default: '200' },
  },
});
const ROWS = Number(args.rows);
const DEVICES = Number(args.devices);
const QUERIES = Number(args.queries);

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const YEAR_START = Date.UTC(2024, 0, 1) - 19_800_000; // 2024-01-01T00:00 IST

function sampleOf(devicePk: number, ts: number, i: number): SampleRow {
  return {
    devicePk,
    ts,
    energy: i * 0.0125,
    active_power: 750 + (i % 97),
    voltage: 229 + (i % 7) * 0.5,
    current: 3.2 + (i % 11) * 0.01,
    power_factor: 0.95,
    apparent_power: 790,
    reactive_power: 120,
    balance: 100_000 - i,
  };
}

async function addDevices(store: Store, count: number, prefix: string): Promise<number[]> {
  const account = await store.createAccount(prefix, YEAR_START);
  const pks: number[] = [];
  for (let d = 0; d < count; d++) {
    const device = await store.createDevice(
      {
        deviceId: `${prefix}-${d}`,
        accountId: account.id,
        spaceId: null,
        name: `meter ${d}`,
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
      YEAR_START,
    );
    pks.push(device.pk);
  }
  return pks;
}

/** ROWS telemetry rows round-robin over the devices, a minute apart per device, one add() each. */
async function ingest(store: Store, pks: number[]): Promise<number> {
  const writer = new BatchWriter({ store, onError: (e) => console.error(e) });
  const started = performance.now();
  // A window of adds in flight, as many meters publishing at once; the writer groups them.
  const WINDOW = 20_000;
  let inFlight: Promise<void>[] = [];
  for (let i = 0; i < ROWS; i++) {
    const pk = pks[i % pks.length]!;
    inFlight.push(writer.add([sampleOf(pk, YEAR_START + Math.floor(i / pks.length) * MINUTE, i)]));
    if (inFlight.length >= WINDOW) {
      await Promise.all(inFlight);
      inFlight = [];
    }
  }
  await Promise.all(inFlight);
  await writer.close();
  return ROWS / ((performance.now() - started) / 1000);
}

/** A meter-year of minute samples for one device, in 10,000-row transactions. */
async function fillYear(store: Store, pk: number): Promise<void> {
  const per = 10_000;
  const total = 366 * 1440;
  for (let i = 0; i < total; i += per) {
    const rows: SampleRow[] = [];
    for (let j = i; j < Math.min(total, i + per); j++) rows.push(sampleOf(pk, YEAR_START + j * MINUTE, j));
    await store.insertSamples(rows);
  }
}

async function latency(store: Store, pk: number, from: number, to: number, bucket: BucketMinutes) {
  const times: number[] = [];
  let points = 0;
  for (let i = 0; i < QUERIES; i++) {
    const t = performance.now();
    points = (await store.history(pk, 'energy', from, to, bucket)).length;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { p50: q(0.5), p95: q(0.95), points };
}

/** unnest() vs COPY into a temp table then INSERT … SELECT, 5,000-row batches into samples only. */
async function bulkPaths(url: string, pk: number): Promise<{ unnest: number; copy: number }> {
  const target = new URL(url);
  const schema = target.searchParams.get('schema')!;
  target.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: target.toString(), options: `-c search_path=${schema}` });
  await client.connect();
  const BATCH = 5000;
  const BATCHES = 20;
  const cols =
    'device_pk, ts, energy, active_power, voltage, current, power_factor, apparent_power, reactive_power, balance';
  const rowsOf = (b: number) =>
    Array.from({ length: BATCH }, (_, i) =>
      sampleOf(pk, YEAR_START + 400 * DAY + (b * BATCH + i) * MINUTE, i),
    );
  const values = (r: SampleRow) => [
    r.devicePk,
    r.ts,
    r.energy,
    r.active_power,
    r.voltage,
    r.current,
    r.power_factor,
    r.apparent_power,
    r.reactive_power,
    r.balance,
  ];
  try {
    let t = performance.now();
    for (let b = 0; b < BATCHES; b++) {
      const rows = rowsOf(b).map(values);
      const columns = rows[0]!.map((_, c) => rows.map((r) => r[c]));
      await client.query(
        `INSERT INTO samples (${cols}) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::float8[], $4::float8[],
          $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::bigint[]) ON CONFLICT DO NOTHING`,
        columns,
      );
    }
    const unnest = (BATCHES * BATCH) / ((performance.now() - t) / 1000);
    t = performance.now();
    for (let b = BATCHES; b < 2 * BATCHES; b++) {
      await client.query('BEGIN');
      await client.query(`CREATE TEMP TABLE incoming (LIKE samples) ON COMMIT DROP`);
      const text = `${rowsOf(b)
        .map((r) =>
          values(r)
            .map((v) => (v === null ? '\\N' : String(v)))
            .join('\t'),
        )
        .join('\n')}\n`;
      await pipeline(
        async function* () {
          yield text;
        },
        client.query(copyFrom(`COPY incoming (${cols}) FROM STDIN`)),
      );
      await client.query(`INSERT INTO samples SELECT * FROM incoming ON CONFLICT DO NOTHING`);
      await client.query('COMMIT');
    }
    const copy = (BATCHES * BATCH) / ((performance.now() - t) / 1000);
    return { unnest, copy };
  } finally {
    await client.end();
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(2);

const dir = mkdtempSync(join(tmpdir(), 'meterstack-store-pg-'));
const schema = freshSchemaName('bench_store');
const url = schemaUrl(schema);
const sqlite = openSqliteStore({ path: join(dir, 'bench.db') });
const postgres = await openPostgresStore({ url });
try {
  console.log(
    `store-pg: ${fmt(ROWS)} rows over ${DEVICES} devices; PostgreSQL ${PG_TEST_URL} schema ${schema}`,
  );
  const results: Record<
    string,
    { ingest: number; year: Awaited<ReturnType<typeof latency>>; day: Awaited<ReturnType<typeof latency>> }
  > = {};
  for (const [name, store] of [
    ['sqlite', sqlite],
    ['postgres', postgres],
  ] as const) {
    const pks = await addDevices(store, DEVICES, 'ingest');
    const rate = await ingest(store, pks);
    const [yearPk] = await addDevices(store, 1, 'year');
    await fillYear(store, yearPk!);
    // Ranges that start and end inside a bucket, so the partial-bucket reads count too.
    const from = YEAR_START + 7 * MINUTE;
    const year = await latency(store, yearPk!, from, from + 365 * DAY, 1440);
    const dayFrom = YEAR_START + 200 * DAY + 7 * MINUTE;
    const day = await latency(store, yearPk!, dayFrom, dayFrom + DAY, 15);
    results[name] = { ingest: rate, year, day };
    console.log(
      `${name.padEnd(8)} ingest ${fmt(rate)} rows/s | year@1d p50 ${ms(year.p50)} ms p95 ${ms(year.p95)} ms (${year.points} points) | day@15m p50 ${ms(day.p50)} ms p95 ${ms(day.p95)} ms (${day.points} points)`,
    );
  }
  const s = results.sqlite!;
  const p = results.postgres!;
  console.log(
    `ratio pg/sqlite: ingest ${(p.ingest / s.ingest).toFixed(2)}x | year@1d p50 ${(p.year.p50 / s.year.p50).toFixed(2)}x (target <= 3x) | day@15m p50 ${(p.day.p50 / s.day.p50).toFixed(2)}x`,
  );
  // The floor of any PostgreSQL read: one round trip of a trivial statement on the same pool.
  const floor = await latency(
    { history: async () => [await postgres.getSetting('bench.none')] } as unknown as Store,
    0,
    0,
    1,
    15,
  );
  console.log(
    `postgres round trip floor (SELECT by primary key) p50 ${ms(floor.p50)} ms p95 ${ms(floor.p95)} ms: year@1d p50 is ${(p.year.p50 / floor.p50).toFixed(2)}x the floor`,
  );
  const pk = (await postgres.getDevice('year-0'))!.pk;
  const bulk = await bulkPaths(url, pk);
  console.log(
    `postgres bulk paths, 5,000-row batches into samples: unnest ${fmt(bulk.unnest)} rows/s, COPY+INSERT…SELECT ${fmt(bulk.copy)} rows/s`,
  );
} finally {
  await sqlite.close();
  await postgres.close();
  rmSync(dir, { recursive: true, force: true });
  await dropSchemas([schema]);
}
