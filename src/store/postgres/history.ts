// History queries on PostgreSQL: the plan of ../history-plan.ts, as SQLite's (whole buckets from a
// rollup, the partial bucket at either end from samples), so the answers are identical for the same
// data, in one statement.

import type pg from 'pg';
import { historyPlan, lastPerBucket } from '../history-plan.ts';
import type { BucketMinutes, HistoryPoint, SampleProperty } from '../types.ts';
import { SAMPLE_PROPERTIES } from '../types.ts';

/**
 * One statement per (property, rollup), prepared by name on each connection: the partial bucket at the
 * start ($2..$3, its last sample), the whole rollup buckets ($4..$5), the partial bucket at the end
 * ($6..$7), as two JSON arrays in ascending ts. One round trip: on a networked store the round trips,
 * not the rows, are what a history request costs (bench/store-pg.ts). float8 and bigint round-trip
 * exactly through JSON. No ORDER BY in json_agg: sorting there was 60 % of a year at 1d's execution
 * time; the parts come in ascending ts as the Append runs them, which query() checks. The property becomes a column name, so the SQL is built once per known
 * property, never from input.
 */
function historySql(p: SampleProperty, rollup: 'samples_15m' | 'samples_1d'): string {
  const last = (from: string, to: string) => `(SELECT ts, ${p} AS v FROM samples
      WHERE device_pk = $1 AND ts >= ${from} AND ts < ${to} AND ${p} IS NOT NULL ORDER BY ts DESC LIMIT 1)`;
  return `
    SELECT coalesce(json_agg(ts), '[]') AS ts, coalesce(json_agg(v), '[]') AS v FROM (
      ${last('$2', '$3')}
      UNION ALL
      (SELECT ts, ${p} FROM ${rollup}
        WHERE device_pk = $1 AND bucket_start >= $4 AND bucket_start < $5 AND ${p} IS NOT NULL
        ORDER BY bucket_start)
      UNION ALL
      ${last('$6', '$7')}
    ) candidates`;
}

const QUERIES = new Map<string, { name: string; text: string }>(
  SAMPLE_PROPERTIES.flatMap((p) =>
    (['samples_15m', 'samples_1d'] as const).map((rollup) => [
      `${p}:${rollup}`,
      { name: `meterstack_history_${p}_${rollup}`, text: historySql(p, rollup) },
    ]),
  ),
);

export class History {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async query(
    devicePk: number,
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): Promise<HistoryPoint[]> {
    const plan = historyPlan(property, fromTs, toTs, bucket);
    if (plan === null) return [];
    const query = QUERIES.get(`${property}:${plan.rollup}`)!;
    // No whole bucket: the middle part reads the empty range [0, 0).
    const params = [devicePk, ...plan.head, ...(plan.whole ?? [0, 0]), ...plan.tail];
    const { rows } = await this.#pool.query<{ ts: number[]; v: number[] }>({ ...query, values: params });
    const { ts, v } = rows[0]!;
    const candidates = ts.map((t, i): [number, number] => [t, v[i]!]);
    // The parts are each ascending and in ts order between them; should a plan ever interleave them, sort.
    if (candidates.some((c, i) => i > 0 && c[0] < candidates[i - 1]![0]))
      candidates.sort((x, y) => x[0] - y[0]);
    return lastPerBucket(candidates, plan.bucketMs);
  }
}
