// Tests only: a migrated database's schema as both dialects can state it, and where two differ.
// Types are compared through the declared equivalence below; everything else must be equal.

import type Database from 'better-sqlite3';
import pg from 'pg';

/** One table in dialect-neutral terms (column types kept as the dialect spells them). */
export interface LiveTable {
  /** In order: "name" or "name NOT NULL". */
  columns: string[];
  /** Column name → type as the dialect reports it (SQLite: declared; PostgreSQL: information_schema). */
  types: Record<string, string>;
  primaryKey: string[];
  /** Sorted: "name [UNIQUE] (a, b)" for a created index, "UNIQUE (a, b)" for a UNIQUE constraint. */
  indexes: string[];
  /** Sorted: "(a, b) -> table (c, d)". */
  foreignKeys: string[];
}

export type LiveSchema = Record<string, LiveTable>;

/**
 * The declared equivalence of SQLite's column types with PostgreSQL's. SQLite's INTEGER is its keys'
 * type (a rowid alias, or what points at one): bigint in PostgreSQL.
 */
export const TYPE_EQUIVALENCE: readonly (readonly [sqlite: string, postgres: string])[] = [
  ['INTEGER', 'bigint'],
  ['BIGINT', 'bigint'],
  ['TEXT', 'text'],
  ['DOUBLE PRECISION', 'double precision'],
  ['BOOLEAN', 'boolean'],
];

/** The columns that are INTEGER in both dialects' SQL (PostgreSQL: integer): small numbers, never keys of rows. */
export const SMALL_INTEGERS: ReadonlySet<string> = new Set([
  'schema_migrations.version',
  'world_owner.id',
  'world_owner.pid',
]);

function sameType(column: string, sqlite: string, postgres: string): boolean {
  if (SMALL_INTEGERS.has(column)) return sqlite === 'INTEGER' && postgres === 'integer';
  return TYPE_EQUIVALENCE.some(([s, p]) => s === sqlite && p === postgres);
}

const list = (names: readonly string[]) => `(${names.join(', ')})`;

export function sqliteSchema(db: Database.Database): LiveSchema {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  const schema: LiveSchema = {};
  for (const table of tables) {
    const cols = db
      .prepare('SELECT name, type, "notnull" AS required, pk FROM pragma_table_info(?) ORDER BY cid')
      .all(table) as { name: string; type: string; required: number; pk: number }[];
    const indexes = db
      .prepare('SELECT name, "unique" AS isUnique, origin FROM pragma_index_list(?)')
      .all(table) as { name: string; isUnique: number; origin: 'c' | 'u' | 'pk' }[];
    const fks = db
      .prepare(
        'SELECT id, "table" AS target, "from" AS col, "to" AS ref FROM pragma_foreign_key_list(?) ORDER BY id, seq',
      )
      .all(table) as { id: number; target: string; col: string; ref: string }[];
    schema[table] = {
      // A primary-key column counts as NOT NULL: PostgreSQL makes it so, and SQLite's rowid tables let
      // a non-INTEGER key be NULL only by a legacy quirk the store never uses.
      columns: cols.map((c) => (c.required || c.pk ? `${c.name} NOT NULL` : c.name)),
      types: Object.fromEntries(cols.map((c) => [c.name, c.type.toUpperCase()])),
      primaryKey: cols
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      indexes: indexes
        .filter((i) => i.origin !== 'pk')
        .map((i) => {
          const on = list(
            db
              .prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno')
              .pluck()
              .all(i.name) as string[],
          );
          return i.origin === 'u' ? `UNIQUE ${on}` : `${i.name} ${i.isUnique ? 'UNIQUE ' : ''}${on}`;
        })
        .sort(),
      foreignKeys: [...new Set(fks.map((f) => f.id))]
        .map((id) => fks.filter((f) => f.id === id))
        .map((f) => `${list(f.map((x) => x.col))} -> ${f[0]!.target} ${list(f.map((x) => x.ref))}`)
        .sort(),
    };
  }
  return schema;
}

export async function postgresSchema(url: string, schemaName: string): Promise<LiveSchema> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const q = async <R extends pg.QueryResultRow>(sql: string) =>
      (await client.query<R>(sql, [schemaName])).rows;
    const tables = await q<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables
       WHERE table_schema = $1 AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    const cols = await q<{ tbl: string; name: string; type: string; nullable: string }>(
      `SELECT table_name AS tbl, column_name AS name, data_type AS type, is_nullable AS nullable
       FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
    );
    // Each index with its columns in order, and the constraint it backs (primary key, UNIQUE), if any.
    const indexes = await q<{
      tbl: string;
      name: string;
      isUnique: boolean;
      con: string | null;
      cols: string[];
    }>(
      `SELECT t.relname AS tbl, i.relname AS name, x.indisunique AS "isUnique", c.contype AS con,
         array(SELECT a.attname FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(num, n)
               JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.num ORDER BY k.n)::text[] AS cols
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace s ON s.oid = t.relnamespace
       LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.contype IN ('p', 'u')
       WHERE s.nspname = $1`,
    );
    const fks = await q<{ tbl: string; target: string; cols: string[]; refs: string[] }>(
      `SELECT t.relname AS tbl, r.relname AS target,
         array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(num, n)
               JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.num ORDER BY k.n)::text[] AS cols,
         array(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(num, n)
               JOIN pg_attribute a ON a.attrelid = r.oid AND a.attnum = k.num ORDER BY k.n)::text[] AS refs
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
       JOIN pg_namespace s ON s.oid = t.relnamespace
       WHERE s.nspname = $1 AND c.contype = 'f'`,
    );
    const schema: LiveSchema = {};
    for (const { name: table } of tables) {
      const own = cols.filter((c) => c.tbl === table);
      const idx = indexes.filter((i) => i.tbl === table);
      schema[table] = {
        columns: own.map((c) => (c.nullable === 'NO' ? `${c.name} NOT NULL` : c.name)),
        types: Object.fromEntries(own.map((c) => [c.name, c.type])),
        primaryKey: idx.find((i) => i.con === 'p')?.cols ?? [],
        indexes: idx
          .filter((i) => i.con !== 'p')
          .map((i) =>
            i.con === 'u'
              ? `UNIQUE ${list(i.cols)}`
              : `${i.name} ${i.isUnique ? 'UNIQUE ' : ''}${list(i.cols)}`,
          )
          .sort(),
        foreignKeys: fks
          .filter((f) => f.tbl === table)
          .map((f) => `${list(f.cols)} -> ${f.target} ${list(f.refs)}`)
          .sort(),
      };
    }
    return schema;
  } finally {
    await client.end();
  }
}

/** Where the two schemas differ, one line each; empty when they are the same schema. */
export function schemaDifferences(sqlite: LiveSchema, postgres: LiveSchema): string[] {
  const out: string[] = [];
  for (const table of new Set([...Object.keys(sqlite), ...Object.keys(postgres)])) {
    const a = sqlite[table];
    const b = postgres[table];
    if (!a || !b) {
      out.push(`table ${table}: only in ${a ? 'SQLite' : 'PostgreSQL'}`);
      continue;
    }
    for (const key of ['columns', 'primaryKey', 'indexes', 'foreignKeys'] as const) {
      const x = a[key].join(', ');
      const y = b[key].join(', ');
      if (x !== y) out.push(`${table} ${key}: SQLite [${x}] PostgreSQL [${y}]`);
    }
    for (const [column, type] of Object.entries(a.types)) {
      const theirs = b.types[column];
      if (theirs === undefined) continue; // said above, under columns
      if (!sameType(`${table}.${column}`, type, theirs))
        out.push(`${table}.${column}: SQLite ${type} is not PostgreSQL ${theirs} (TYPE_EQUIVALENCE)`);
    }
  }
  return out;
}
