// A table of one row per device (../per-device-rows.ts) in PostgreSQL: each batch is one statement over
// unnest()ed arrays, so it is atomic without an explicit transaction.

import type pg from 'pg';
import { type PerDeviceTable, rowValues, selectSql, upsertSql } from '../per-device-rows.ts';

export class PerDeviceRows<T extends { devicePk: number }> {
  readonly #pool: pg.Pool;
  readonly #table: PerDeviceTable<T>;
  readonly #upsert: string;
  readonly #select: string;

  constructor(pool: pg.Pool, table: PerDeviceTable<T>) {
    this.#pool = pool;
    this.#table = table;
    const arrays = table.fields.map(([, , type], i) => `$${i + 1}::${type}[]`);
    this.#upsert = upsertSql(table, `SELECT * FROM unnest(${arrays.join(', ')})`);
    this.#select = selectSql(table);
  }

  /** All or none: one statement. A device listed twice keeps its last row (one upsert may not touch a row twice). */
  async save(rows: readonly T[]): Promise<void> {
    const last = [...new Map(rows.map((r) => [r.devicePk, r])).values()];
    if (last.length === 0) return;
    const values = last.map((r) => rowValues(this.#table, r));
    await this.#pool.query(
      this.#upsert,
      this.#table.fields.map((_, i) => values.map((v) => v[i])),
    );
  }

  async load(): Promise<T[]> {
    return (await this.#pool.query<T>(this.#select)).rows;
  }
}
