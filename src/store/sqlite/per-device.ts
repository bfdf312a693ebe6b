// A table of one row per device (../per-device-rows.ts) in SQLite: a batch upserted in one transaction.

import type Database from 'better-sqlite3';
import { type PerDeviceTable, rowValues, selectSql, upsertSql } from '../per-device-rows.ts';

export class PerDeviceRows<T extends { devicePk: number }> {
  readonly #all: Database.Statement<[], T>;
  readonly #saveAll: Database.Transaction<(rows: readonly T[]) => void>;

  constructor(db: Database.Database, table: PerDeviceTable<T>) {
    const upsert = db.prepare<unknown[]>(
      upsertSql(table, `VALUES (${table.fields.map(() => '?').join(', ')})`),
    );
    this.#all = db.prepare(selectSql(table));
    this.#saveAll = db.transaction((rows) => {
      for (const r of rows) upsert.run(...rowValues(table, r));
    });
  }

  /** All in one transaction: a crash leaves either all the new rows or none. */
  save(rows: readonly T[]): void {
    this.#saveAll(rows);
  }

  load(): T[] {
    return this.#all.all();
  }
}
