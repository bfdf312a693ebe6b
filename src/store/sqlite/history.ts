// History queries on SQLite: the plan of ../history-plan.ts, a statement per part.

import type Database from 'better-sqlite3';
import { historyPlan, lastPerBucket } from '../history-plan.ts';
import type { BucketMinutes, HistoryPoint, SampleProperty } from '../types.ts';
import { SAMPLE_PROPERTIES } from '../types.ts';

/** [JSON array of ts, JSON array of values], ascending by bucket. */
type RollupArrays = [string, string];
/** [ts, value] */
type RawTuple = [number, number];

interface Queries {
  samples_15m: Database.Statement<[number, number, number], RollupArrays>;
  samples_1d: Database.Statement<[number, number, number], RollupArrays>;
  /** The last sample with the property in [from, to). */
  lastRaw: Database.Statement<[number, number, number], RawTuple>;
}

export class History {
  readonly #queries = new Map<SampleProperty, Queries>();

  constructor(db: Database.Database) {
    // The property becomes a column name, so statements are prepared once per known property and never
    // from caller input.
    for (const p of SAMPLE_PROPERTIES) {
      // The rollup rows come back as two JSON arrays in a single result row: for a year of 15-minute
      // buckets (35,040 rows) that is about twice as fast as one JS array per row, and JSON round-trips
      // doubles exactly. The ORDER BY subquery is a co-routine that scans the primary key in order, so the
      // arrays are ascending without a sort. PostgreSQL: json_agg(ts ORDER BY bucket_start).
      const rollup = (table: string) =>
        db
          .prepare<[number, number, number], RollupArrays>(`
            SELECT json_group_array(ts), json_group_array(${p}) FROM (
              SELECT ts, ${p} FROM ${table}
              WHERE device_pk = ? AND bucket_start >= ? AND bucket_start < ? AND ${p} IS NOT NULL
              ORDER BY bucket_start)`)
          .raw();
      this.#queries.set(p, {
        samples_15m: rollup('samples_15m'),
        samples_1d: rollup('samples_1d'),
        lastRaw: db
          .prepare<[number, number, number], RawTuple>(`
            SELECT ts, ${p} FROM samples
            WHERE device_pk = ? AND ts >= ? AND ts < ? AND ${p} IS NOT NULL
            ORDER BY ts DESC LIMIT 1`)
          .raw(),
      });
    }
  }

  /** Last value of `property` per bucket with data, for fromTs <= ts < toTs, ascending by bucket. */
  query(
    devicePk: number,
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): HistoryPoint[] {
    const plan = historyPlan(property, fromTs, toTs, bucket);
    if (plan === null) return [];
    const q = this.#queries.get(property)!;
    const candidates: RawTuple[] = [];
    // The partial bucket's last sample is one indexed lookup.
    const raw = ([from, to]: readonly [number, number]) => {
      if (from >= to) return;
      const row = q.lastRaw.get(devicePk, from, to);
      if (row !== undefined) candidates.push(row);
    };
    raw(plan.head);
    if (plan.whole !== null) {
      const [tsJson, valuesJson] = q[plan.rollup].get(devicePk, ...plan.whole)!;
      const tss: number[] = JSON.parse(tsJson);
      const values: number[] = JSON.parse(valuesJson);
      for (let i = 0; i < tss.length; i++) candidates.push([tss[i]!, values[i]!]);
    }
    raw(plan.tail);
    return lastPerBucket(candidates, plan.bucketMs);
  }
}
