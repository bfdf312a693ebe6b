// The schema's migrations (../schema/) in PostgreSQL's dialect, and their runner.
//
// Two processes starting at once: the runner holds a transaction advisory lock per migration and
// re-checks schema_migrations under it, so exactly one applies each (DDL is transactional here).

import type pg from 'pg';
import { POSTGRES } from '../schema/dialect.ts';
import {
  assertNotNewer,
  CREATE_MIGRATIONS_TABLE,
  checkOrder,
  type Migration,
  migrationsIn,
} from '../schema/migration.ts';
import { advisoryXactLock, inTransaction, LOCK } from './db.ts';

export type { Migration };

export const MIGRATIONS: readonly Migration[] = migrationsIn(POSTGRES);

/** Applies the migrations not yet recorded, in order; returns the versions applied now. */
export async function migrate(
  pool: pg.Pool,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
): Promise<number[]> {
  checkOrder(migrations);
  // CREATE TABLE IF NOT EXISTS is not safe against a concurrent twin (it can fail on pg_type's
  // unique index), so it runs under the same lock as the migrations.
  await inTransaction(pool, async (c) => {
    await advisoryXactLock(c, LOCK.migrate);
    await c.query(CREATE_MIGRATIONS_TABLE);
  });
  const applied: number[] = [];
  for (const migration of migrations) {
    await inTransaction(pool, async (c) => {
      await advisoryXactLock(c, LOCK.migrate);
      if (migration === migrations[0]) {
        const { rows } = await c.query<{ v: number | null }>(
          'SELECT max(version) AS v FROM schema_migrations',
        );
        assertNotNewer(rows[0]?.v, migrations);
      }
      const seen = await c.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (seen.rowCount) return;
      await c.query(migration.sql);
      await c.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        now(),
      ]);
      applied.push(migration.version);
    });
  }
  return applied;
}
