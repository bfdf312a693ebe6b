// The two store backends for whole-service tests: a fresh SQLite file in a temp directory, or a fresh
// schema in the machine's PostgreSQL (src/store/postgres/test-schemas.ts), and raw reads of either.
// PostgreSQL absent: its half is skipped with a line saying so, except under CI=true, where it fails.

import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { TYPES } from '../../src/store/postgres/db.ts';
import {
  dropSchemas,
  freshSchemaName,
  postgresAbsence,
  schemaUrl,
} from '../../src/store/postgres/test-schemas.ts';
import { tempDir } from './service.ts';

export type DbBackend = 'sqlite' | 'postgres';

/** For `describe.each(await dbBackends())('… on $name', ({ name }) => …)`. */
export async function dbBackends(): Promise<{ name: DbBackend }[]> {
  const absent = await postgresAbsence();
  if (absent === null) return [{ name: 'sqlite' }, { name: 'postgres' }];
  console.warn(`${absent}: the PostgreSQL half of these service tests is skipped`);
  return [{ name: 'sqlite' }];
}

/** A store URL no one else uses: a file in a fresh temp directory, or a fresh schema. */
export async function freshDb(backend: DbBackend): Promise<{ db: string; remove: () => Promise<void> }> {
  if (backend === 'sqlite') {
    const { dir, remove } = tempDir();
    return { db: join(dir, 'meterstack.db'), remove: async () => remove() };
  }
  const schema = freshSchemaName('mst_svc');
  return { db: schemaUrl(schema), remove: () => dropSchemas([schema]) };
}

/** Runs a read-only query on the store behind `db`, outside the service; `?` placeholders. */
export async function queryDb<T>(db: string, sql: string, params: unknown[] = []): Promise<T[]> {
  if (!/^postgres(ql)?:\/\//.test(db)) {
    const sqlite = new Database(db, { readonly: true });
    try {
      return sqlite.prepare(sql).all(...params) as T[];
    } finally {
      sqlite.close();
    }
  }
  const url = new URL(db);
  const schema = url.searchParams.get('schema');
  url.searchParams.delete('schema');
  const client = new pg.Client({
    connectionString: url.toString(),
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
    types: TYPES, // BIGINT as numbers, as the store reads them (and as SQLite gives them)
  });
  await client.connect();
  try {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}
