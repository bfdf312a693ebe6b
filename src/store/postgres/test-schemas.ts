// Test support: a fresh schema per test (or per service) in the machine's PostgreSQL, dropped after.
// Imported only by tests and benches. METERSTACK_TEST_PG names another server or database.

import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_TEST_URL = process.env.METERSTACK_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

let probe: Promise<string | null> | undefined;

/**
 * null when PostgreSQL answers at PG_TEST_URL, else why not. Absent is a skip with a line saying so,
 * except under CI=true, where the PostgreSQL half must run: then it throws.
 */
export function postgresAbsence(): Promise<string | null> {
  probe ??= (async () => {
    const client = new pg.Client({ connectionString: PG_TEST_URL, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return null;
    } catch (err) {
      return `PostgreSQL at ${PG_TEST_URL} is not available (${(err as Error).message})`;
    } finally {
      await client.end().catch(() => {});
    }
  })();
  return probe.then((absent) => {
    if (absent !== null && process.env.CI === 'true')
      throw new Error(`${absent}; CI runs the PostgreSQL half`);
    return absent;
  });
}

/** A schema name no other test or run uses. */
export function freshSchemaName(prefix = 'mst'): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** PG_TEST_URL with ?schema=NAME. */
export function schemaUrl(schema: string, base = PG_TEST_URL): string {
  const url = new URL(base);
  url.searchParams.set('schema', schema);
  return url.toString();
}

/** Drops the schemas and everything in them; a missing one is fine. */
export async function dropSchemas(schemas: readonly string[], base = PG_TEST_URL): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: base, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs SQL in `schema` on its own connection, as "SQL from outside the store". */
export async function runInSchema(schema: string, sql: string, base = PG_TEST_URL): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: base, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}
