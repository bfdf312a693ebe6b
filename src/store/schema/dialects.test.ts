// One schema, two dialects: a fresh SQLite file and a fresh PostgreSQL schema, each migrated by its
// store, hold the same tables, columns (in order, with nullability), primary keys, indexes and foreign
// keys, and column types that TYPE_EQUIVALENCE declares the same.

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../postgres/pg-store.ts';
import {
  dropSchemas,
  freshSchemaName,
  PG_TEST_URL,
  postgresAbsence,
  runInSchema,
  schemaUrl,
} from '../postgres/test-schemas.ts';
import { useTempStores } from '../test-helpers.ts';
import { SQLITE } from './dialect.ts';
import { type LiveSchema, postgresSchema, schemaDifferences, sqliteSchema } from './live-schema.ts';
import { SCHEMA_MIGRATIONS } from './migration.ts';

const absent = await postgresAbsence();
if (absent !== null) console.warn(`${absent}: schema/dialects.test.ts is skipped`);

const files = useTempStores();
const schemas: string[] = [];
afterEach(async () => {
  await dropSchemas(schemas.splice(0));
});

/** A fresh SQLite file migrated by its store; `after` runs on it before it is read. */
async function sqliteLive(after = ''): Promise<LiveSchema> {
  await files.open().close();
  const db = new Database(join(files.dir(), 'store.db'));
  try {
    db.exec(after);
    return sqliteSchema(db);
  } finally {
    db.close();
  }
}

/** A fresh PostgreSQL schema migrated by its store; `after` runs in it before it is read. */
async function postgresLive(after = ''): Promise<LiveSchema> {
  const schema = freshSchemaName('mst_dialects');
  schemas.push(schema);
  await (await openPostgresStore({ url: schemaUrl(schema), maxConnections: 2 })).close();
  if (after !== '') await runInSchema(schema, after);
  return postgresSchema(PG_TEST_URL, schema);
}

describe.skipIf(absent !== null)('one schema, two dialects', () => {
  it('both stores migrate to the same schema: tables, columns, types, nullability, keys, indexes', async () => {
    const [sqlite, postgres] = [await sqliteLive(), await postgresLive()];
    // Every table a migration creates, and the bookkeeping table: none missing from the comparison.
    const created = SCHEMA_MIGRATIONS.flatMap((m) => [...m.sql(SQLITE).matchAll(/CREATE TABLE (\w+)/g)]);
    expect(Object.keys(sqlite).sort()).toEqual([...created.map((c) => c[1]), 'schema_migrations'].sort());
    expect(schemaDifferences(sqlite, postgres)).toEqual([]);
  });

  it('both are at the newest version of the one migration list', async () => {
    const newest = SCHEMA_MIGRATIONS.at(-1)!.version;
    await files.open().close();
    const db = new Database(join(files.dir(), 'store.db'), { readonly: true });
    const sqliteVersions = db.prepare('SELECT version FROM schema_migrations ORDER BY 1').pluck().all();
    db.close();
    const schema = freshSchemaName('mst_dialects');
    schemas.push(schema);
    await (await openPostgresStore({ url: schemaUrl(schema), maxConnections: 2 })).close();
    const pgVersions = (await runInSchema(schema, 'SELECT version FROM schema_migrations ORDER BY 1')) as {
      version: number;
    }[];
    expect(sqliteVersions).toEqual(SCHEMA_MIGRATIONS.map((m) => m.version));
    expect(pgVersions.map((r) => r.version)).toEqual(sqliteVersions);
    expect(sqliteVersions.at(-1)).toBe(newest);
  });

  it('a column, an index or a type in one dialect only is a difference, named', async () => {
    const sqlite = await sqliteLive('ALTER TABLE settings ADD COLUMN note TEXT');
    const postgres = await postgresLive(
      `CREATE INDEX ledger_kind ON ledger (kind); ALTER TABLE world_owner ALTER COLUMN pid TYPE text;
       ALTER TABLE events ALTER COLUMN seq TYPE integer`,
    );
    expect(schemaDifferences(sqlite, postgres)).toEqual([
      'events.seq: SQLite INTEGER is not PostgreSQL integer (TYPE_EQUIVALENCE)',
      'ledger indexes: SQLite [UNIQUE (transaction_id), ledger_device_seq (device_pk, seq)] PostgreSQL [UNIQUE (transaction_id), ledger_device_seq (device_pk, seq), ledger_kind (kind)]',
      'settings columns: SQLite [key NOT NULL, value NOT NULL, note] PostgreSQL [key NOT NULL, value NOT NULL]',
      'world_owner.pid: SQLite INTEGER is not PostgreSQL text (TYPE_EQUIVALENCE)',
    ]);
  });
});
