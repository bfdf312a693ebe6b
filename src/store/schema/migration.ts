// One schema, two dialects: the numbered migrations, each written once with its dialect's slots
// (dialect.ts), and what both runners share. Each runner (sqlite/migrations.ts, postgres/migrations.ts)
// applies them in order, each in its own transaction, recorded in schema_migrations.
//
// Append new migrations to the end (a file of their own); never edit one that has shipped: SQLite keeps
// each CREATE statement's text, and a snapshot file's schema is compared with it (SNAP-2). The SQL is
// one text for both dialects but for the slots: timestamps are BIGINT milliseconds since the epoch,
// measurements DOUBLE PRECISION, money BIGINT paise, flags BOOLEAN. schema/dialects.test.ts migrates
// both and compares the live schemas.

import type { Dialect, SchemaMigration } from './dialect.ts';
import { v1 } from './v1-accounts.ts';
import { v2 } from './v2-samples.ts';
import { v3 } from './v3-ledger.ts';
import { v4, v5, v6, v7, v8, v9 } from './v4-v9.ts';

export type { SchemaMigration } from './dialect.ts';

/** A migration in one dialect, as a runner applies it. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const SCHEMA_MIGRATIONS: readonly SchemaMigration[] = [v1, v2, v3, v4, v5, v6, v7, v8, v9];

/** The migrations in dialect `d`. */
export function migrationsIn(d: Dialect): readonly Migration[] {
  return SCHEMA_MIGRATIONS.map((m) => ({ version: m.version, name: m.name, sql: m.sql(d) }));
}

/** The runners' bookkeeping table, the same in both dialects. */
export const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

/** Versions must be 1, 2, 3, ... in order: a gap or a swap is a programming error. */
export function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    if (!Number.isInteger(m.version) || m.version !== i + 1) {
      throw new TypeError(
        `migration #${i + 1} has version ${m.version}; versions must be 1, 2, 3, ... in order`,
      );
    }
  });
}

/** Refuses a database whose newest applied version (`newest`, null: none) this build does not know. */
export function assertNotNewer(newest: number | null | undefined, migrations: readonly Migration[]): void {
  const known = migrations.at(-1)?.version ?? 0;
  if (newest != null && newest > known) {
    throw new Error(
      `database schema version ${newest} is newer than this build knows (${known}); upgrade meterstack`,
    );
  }
}
