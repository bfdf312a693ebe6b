// History queries on PostgreSQL: the same plan as sqlite/history.ts (whole buckets from a rollup, the
// partial bucket at either end from samples), so the answers are identical for the same data, in one
// statement.

import type pg from 'pg';
import { bucketCeil, bucketStart, DAY_MS, isBucketMinutes, MINUTE_MS, QUARTER_HOUR_MS } from '../buckets.ts';
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
    if (!SAMPLE_PROPERTIES.includes(property))
      throw new TypeError(`unknown sample property ${JSON.stringify(property)}`);
    if (!isBucketMinutes(bucket))
      throw new TypeError(`bucket must be 15, 30, 60 or 1440 minutes, not ${bucket}`);
    if (!(fromTs < toTs)) return [];

    const bucketMs = bucket * MINUTE_MS;
    const [rollup, rollupMs] =
      bucket === 1440 ? (['samples_1d', DAY_MS] as const) : (['samples_15m', QUARTER_HOUR_MS] as const);
    const query = QUERIES.get(`${property}:${rollup}`)!;
    // As in sqlite/history.ts: whole rollup buckets are [wholeFrom, wholeTo); the partial ones at either
    // end lie inside one rollup bucket each. No whole bucket: two partial reads split at the boundary.
    const wholeFrom = bucketCeil(fromTs, rollupMs);
    const wholeTo = bucketStart(toTs, rollupMs);
    const params =
      wholeFrom >= wholeTo
        ? [devicePk, fromTs, Math.min(wholeFrom, toTs), 0, 0, Math.min(wholeFrom, toTs), toTs]
        : [devicePk, fromTs, wholeFrom, wholeFrom, wholeTo, wholeTo, toTs];
    const { rows } = await this.#pool.query<{ ts: number[]; v: number[] }>({ ...query, values: params });
    const { ts, v } = rows[0]!;
    const candidates = ts.map((t, i): [number, number] => [t, v[i]!]);
    // The parts are each ascending and in ts order between them; should a plan ever interleave them, sort.
    if (candidates.some((c, i) => i > 0 && c[0] < candidates[i - 1]![0]))
      candidates.sort((x, y) => x[0] - y[0]);
    return lastPerBucket(candidates, bucketMs);
  }
}

/** Candidates in ascending ts: a later one in the same output bucket replaces the earlier. */
function lastPerBucket(candidates: readonly [number, number][], bucketMs: number): HistoryPoint[] {
  const points: HistoryPoint[] = [];
  let last: HistoryPoint | undefined;
  for (const [ts, value] of candidates) {
    const start = bucketStart(ts, bucketMs);
    if (last !== undefined && last.bucketStart === start) {
      last.ts = ts;
      last.value = value;
    } else {
      last = { bucketStart: start, ts, value };
      points.push(last);
    }
  }
  return points;
}
