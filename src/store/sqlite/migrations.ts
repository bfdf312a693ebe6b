// The schema's migrations (../schema/) in SQLite's dialect, and their runner.

import type Database from 'better-sqlite3';
import { SQLITE } from '../schema/dialect.ts';
import {
  assertNotNewer,
  CREATE_MIGRATIONS_TABLE,
  checkOrder,
  type Migration,
  migrationsIn,
} from '../schema/migration.ts';

export type { Migration };

export const MIGRATIONS: readonly Migration[] = migrationsIn(SQLITE);

/**
 * Applies the migrations not yet recorded, in order, each in its own IMMEDIATE transaction (so two processes
 * opening the same file cannot both apply one). Returns the versions applied now.
 */
export function migrate(
  db: Database.Database,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
): number[] {
  checkOrder(migrations);
  db.exec(CREATE_MIGRATIONS_TABLE);
  const isApplied = db.prepare<[number], { version: number }>(
    'SELECT version FROM schema_migrations WHERE version = ?',
  );
  const record = db.prepare<[number, string, number]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  assertNotNewer(
    db.prepare<[], { v: number | null }>('SELECT max(version) AS v FROM schema_migrations').get()?.v,
    migrations,
  );

  const applied: number[] = [];
  for (const migration of migrations) {
    const apply = db.transaction(() => {
      if (isApplied.get(migration.version)) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now());
      applied.push(migration.version);
    });
    apply.immediate();
  }
  return applied;
}
