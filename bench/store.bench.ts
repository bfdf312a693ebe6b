// Store benchmark: sample insert throughput and history latency, on a temp-file SQLite database.
// Run: npx tsx bench/store.bench.ts
//
// A "reading" is one property value: a basic meter sample carries 3 (energy, active_power, voltage), a full
// one 7. Both also carry the balance, which is not counted.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MeterModel } from '../firmware-protocol/mqtt/vocabulary.ts';
import { openSqliteStore, type SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import type { BucketMinutes, SampleRow } from '../src/store/types.ts';

const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const YEAR_START = Date.UTC(2024, 0, 1) - 19_800_000; // 2024-01-01T00:00 IST
const BATCH = 5000;

function sampleOf(model: MeterModel, devicePk: number, ts: number, i: number): SampleRow {
  const full = model === 'full';
  return {
    devicePk,
    ts,
    energy: i * 0.0125,
    active_power: 750 + (i % 97),
    voltage: 229 + (i % 7) * 0.5,
    current: full ? 3.2 + (i % 11) * 0.01 : null,
    power_factor: full ? 0.95 : null,
    apparent_power: full ? 790 : null,
    reactive_power: full ? 120 : null,
    balance: 100_000 - i,
  };
}

async function addDevices(
  store: SqliteStore,
  model: MeterModel,
  count: number,
  prefix: string,
): Promise<number[]> {
  const account = await store.createAccount(prefix, YEAR_START);
  const pks: number[] = [];
  for (let d = 0; d < count; d++) {
    const device = await store.createDevice(
      {
        deviceId: `${prefix}-${d}`,
        accountId: account.id,
        spaceId: null,
        name: `${model} ${d}`,
        description: '',
        model,
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

/** Backfill: each transaction is BATCH consecutive minute samples of one meter. Returns rows/s. */
async function backfill(
  store: SqliteStore,
  model: MeterModel,
  pks: number[],
  perDevice: number,
): Promise<number> {
  let rows = 0;
  let elapsed = 0;
  for (const pk of pks) {
    for (let from = 0; from < perDevice; from += BATCH) {
      const batch: SampleRow[] = [];
      for (let i = from; i < Math.min(from + BATCH, perDevice); i++) {
        batch.push(sampleOf(model, pk, YEAR_START + i * MINUTE, i));
      }
      const t = performance.now();
      rows += await store.insertSamples(batch);
      elapsed += performance.now() - t;
    }
  }
  return rows / (elapsed / 1000);
}

/** Live fan-in: each transaction holds one sample from each of many meters. Returns rows/s. */
async function fanIn(store: SqliteStore, model: MeterModel, pks: number[], rounds: number): Promise<number> {
  let rows = 0;
  let elapsed = 0;
  for (let i = 0; i < rounds; i++) {
    const batch = pks.map((pk) => sampleOf(model, pk, YEAR_START + i * MINUTE, i));
    const t = performance.now();
    rows += await store.insertSamples(batch);
    elapsed += performance.now() - t;
  }
  return rows / (elapsed / 1000);
}

async function latency(
  store: SqliteStore,
  pk: number,
  span: number,
  bucket: BucketMinutes,
  iterations: number,
): Promise<{ p50: number; p99: number; points: number }> {
  const times: number[] = [];
  let points = 0;
  for (let i = 0; i < iterations + 5; i++) {
    // Whole IST days, spread over the year when the span allows.
    const days = Math.max(0, 366 - span / DAY);
    const from = YEAR_START + (days === 0 ? 0 : (i * 37) % days) * DAY;
    const t = performance.now();
    const result = await store.history(pk, 'energy', from, from + span, bucket);
    const ms = performance.now() - t;
    if (i >= 5) times.push(ms); // the first few warm the page cache and statement
    points = result.length;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99), points };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'meterstack-bench-'));
  const store = openSqliteStore({ path: join(dir, 'bench.db') });
  try {
    console.log('store.bench: SQLite (WAL, synchronous=NORMAL), temp file', dir);

    for (const [model, readings] of [
      ['basic', 3],
      ['full', 7],
    ] as const) {
      const pks = await addDevices(store, model, 10, `backfill-${model}`);
      const rate = await backfill(store, model, pks, 50_000);
      console.log(
        `insert ${model.padEnd(5)} backfill (batches of ${BATCH} of one meter): ${fmt(rate)} rows/s = ${fmt(rate * readings)} readings/s`,
      );
      const fanPks = await addDevices(store, model, BATCH, `fan-in-${model}`);
      const fanRate = await fanIn(store, model, fanPks, 20);
      console.log(
        `insert ${model.padEnd(5)} fan-in   (1 sample from each of ${BATCH} meters): ${fmt(fanRate)} rows/s = ${fmt(fanRate * readings)} readings/s`,
      );
    }

    const [yearPk] = await addDevices(store, 'full', 1, 'year');
    const t = performance.now();
    await backfill(store, 'full', [yearPk!], 525_600);
    console.log(`loaded one meter-year: ${fmt(525_600)} minute samples in ${ms(performance.now() - t)}`);

    const cases: [string, number, BucketMinutes, number][] = [
      ['day  at 15m', DAY, 15, 2000],
      ['year at 1d ', 365 * DAY, 1440, 300],
      ['year at 60m', 365 * DAY, 60, 100],
      ['year at 15m', 365 * DAY, 15, 100],
    ];
    for (const [label, span, bucket, iterations] of cases) {
      const r = await latency(store, yearPk!, span, bucket, iterations);
      console.log(`history ${label}: p50 ${ms(r.p50)}  p99 ${ms(r.p99)}  (${fmt(r.points)} points)`);
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
