// A world snapshot's portable file, read as hostile input (issue 18 items 4-5, spec-decisions 136-138):
// opened read-only with none of its SQL able to run (SNAP-1), its schema compared object by object with
// the one this build creates (SNAP-2), then every stored value's type, finiteness and key uniqueness
// checked (SNAP-3). Nothing of the file reaches a live database but rows copied into the live schema.
// Messages name what is wrong in the file, never where the file is on this server (SNAP-6).

import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SnapshotFileError } from '../errors.ts';
import type { WorldSnapshotInfo, WorldSnapshotMeta } from '../types.ts';
import { SNAPSHOT_CLOCK_MAX, SNAPSHOT_CLOCK_MIN, WORLD_TABLES } from '../world-tables.ts';
import { MIGRATIONS, migrate } from './migrations.ts';

export const META_TABLE = 'world_snapshot';
export const META_DDL = `CREATE TABLE ${META_TABLE} (name TEXT NOT NULL, created_at BIGINT NOT NULL, clock BIGINT NOT NULL,
       speed DOUBLE PRECISION NOT NULL, devices INTEGER NOT NULL, readings INTEGER NOT NULL)`;

/** The tables a snapshot file's rows are read from: the world's and the settings. */
export const FILE_TABLES = [...WORLD_TABLES, 'settings'] as const;

/** At most this many problems are named in one refusal; the rest are counted. */
const MAX_NAMED = 8;

interface SchemaObject {
  type: string;
  name: string;
  tbl: string;
  sql: string | null;
}

/**
 * [SNAP-1] A snapshot file opened so that none of its SQL runs: read-only, `query_only`, and
 * `trusted_schema = OFF` (a view or trigger of the file may call no function with side effects). The
 * file's triggers could only fire on a write, and this connection cannot write.
 */
export function openSnapshotFile(file: string): Database.Database {
  if (!existsSync(file)) throw new SnapshotFileError('no such file');
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch {
    throw new SnapshotFileError('not a SQLite file');
  }
  try {
    db.pragma('trusted_schema = OFF');
    db.pragma('query_only = ON');
    db.pragma('foreign_keys = OFF');
  } catch {
    db.close();
    throw new SnapshotFileError('not a SQLite file');
  }
  return db;
}

const normalise = (sql: string | null) => (sql === null ? null : sql.replace(/\s+/g, ' ').trim());

/**
 * [SNAP-10] The oldest schema version a snapshot file may have: the first build that wrote world
 * snapshots was at migration 7. A file of an older build than this one (7 up to the newest) is taken
 * when its schema is exactly what this build's migrations made at its version; its rows are copied into
 * the live schema by the columns it has (a column added since takes its default, a table added since
 * starts empty), so snapshots outlive an upgrade.
 */
export const OLDEST_SNAPSHOT_VERSION = 7;

const references = new Map<number, Map<string, SchemaObject>>();

/** A database of this build's schema at `version`: its migrations up to it, and the meta table. */
function referenceDb(version: number): Database.Database {
  const db = new Database(':memory:');
  migrate(
    db,
    MIGRATIONS.filter((m) => m.version <= version),
  );
  db.exec(META_DDL);
  return db;
}

/** The schema this build writes into a snapshot file at `version` (default: the newest). */
function referenceSchema(version: number): Map<string, SchemaObject> {
  const known = references.get(version);
  if (known) return known;
  const db = referenceDb(version);
  try {
    const schema = schemaOf(db);
    references.set(version, schema);
    return schema;
  } finally {
    db.close();
  }
}

/** [SNAP-10] The file's schema version, if it is one this build can take; else refused. */
function fileVersion(db: Database.Database): number {
  let version: unknown;
  try {
    version = db.prepare('SELECT max(version) AS v FROM schema_migrations').pluck().get();
  } catch {
    throw new SnapshotFileError('not a meterstack world snapshot (it has no schema_migrations table)');
  }
  const newest = MIGRATIONS.at(-1)!.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < OLDEST_SNAPSHOT_VERSION)
    throw new SnapshotFileError(
      `a snapshot of schema version ${String(version)}; this build restores versions ${OLDEST_SNAPSHOT_VERSION} to ${newest}`,
    );
  if (version > newest)
    throw new SnapshotFileError(
      `a snapshot of schema version ${version}, newer than this build knows (${newest}); upgrade meterstack`,
    );
  return version;
}

/** The world and settings tables a (checked) snapshot file has: an older build's may lack newer ones. */
export function tablesOf(db: Database.Database, schema = 'main'): Set<string> {
  const rows = db.prepare(`SELECT name FROM ${schema}.sqlite_schema WHERE type = 'table'`).pluck().all();
  return new Set(rows as string[]);
}

/** A table's column names in a (checked) file, in order, quoted for SQL. */
export function columnListOf(db: Database.Database, table: string, schema = 'main'): string {
  const names = db.prepare('SELECT name FROM pragma_table_info(?, ?)').pluck().all(table, schema);
  return (names as string[]).map((n) => `"${n}"`).join(', ');
}

function schemaOf(db: Database.Database): Map<string, SchemaObject> {
  const rows = db
    .prepare('SELECT type, name, tbl_name AS tbl, sql FROM sqlite_schema ORDER BY type, name')
    .all() as SchemaObject[];
  return new Map(rows.map((r) => [`${r.type} ${r.name}`, { ...r, sql: normalise(r.sql) }]));
}

interface Column {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

const columnsOf = (db: Database.Database, table: string) =>
  db.prepare(`SELECT name, type, "notnull", pk FROM pragma_table_info(?)`).all(table) as Column[];

/** What differs between the file's table and ours, in words (for a table whose SQL text differs). */
function tableDifference(file: Database.Database, table: string, version: number): string {
  const ref = referenceDb(version);
  try {
    const ours = new Map(columnsOf(ref, table).map((c) => [c.name, c]));
    const theirs = new Map(columnsOf(file, table).map((c) => [c.name, c]));
    const said: string[] = [];
    for (const [name, c] of ours) {
      const t = theirs.get(name);
      if (!t) said.push(`column ${table}.${name} is missing`);
      else if (t.type !== c.type || t.notnull !== c.notnull || t.pk !== c.pk)
        said.push(
          `column ${table}.${name} is ${t.type || 'untyped'}${t.notnull ? ' NOT NULL' : ''}, not ${c.type}${c.notnull ? ' NOT NULL' : ''}`,
        );
    }
    for (const name of theirs.keys()) if (!ours.has(name)) said.push(`column ${table}.${name} is extra`);
    return said.length > 0 ? said.join('; ') : `table ${table}'s constraints differ from this build's`;
  } finally {
    ref.close();
  }
}

function refuse(problems: string[], what: string): never {
  const named = problems.slice(0, MAX_NAMED).join('; ');
  const more = problems.length > MAX_NAMED ? `; and ${problems.length - MAX_NAMED} more` : '';
  throw new SnapshotFileError(`${what}: ${named}${more}`);
}

/**
 * [SNAP-2] The file's schema must be exactly this build's at the file's version [SNAP-10]: every table,
 * column, index and trigger, compared as SQL text (whitespace aside), and nothing more (no view, no
 * extra trigger, index or table).
 */
export function checkSnapshotSchema(db: Database.Database): void {
  let theirs: Map<string, SchemaObject>;
  try {
    theirs = schemaOf(db);
  } catch {
    throw new SnapshotFileError('not a SQLite file with a readable schema');
  }
  const version = theirs.has('table schema_migrations') ? fileVersion(db) : MIGRATIONS.at(-1)!.version;
  const ours = referenceSchema(version);
  const problems: string[] = [];
  for (const [key, o] of theirs) {
    const ref = ours.get(key);
    if (!ref) problems.push(`extra ${o.type} ${o.name}${o.tbl !== o.name ? ` on ${o.tbl}` : ''}`);
    else if (ref.sql !== o.sql || ref.tbl !== o.tbl)
      problems.push(
        o.type === 'table'
          ? tableDifference(db, o.name, version)
          : `${o.type} ${o.name} differs from this build's`,
      );
  }
  for (const [key, o] of ours) if (!theirs.has(key)) problems.push(`missing ${o.type} ${o.name}`);
  if (problems.length > 0) refuse(problems, "not a meterstack world snapshot of this build's schema");
}

/**
 * [SNAP-3] What a column of this declared type may hold: INT columns integers, BOOLEAN 0 or 1, DOUBLE
 * finite numbers, TEXT text; NULL only where the column allows it. Anything else is refused.
 */
function allowed(c: Column): string {
  const v = `"${c.name}"`;
  const kind = /BOOL/i.test(c.type)
    ? `(typeof(${v}) = 'integer' AND ${v} IN (0, 1))`
    : /INT/i.test(c.type)
      ? `typeof(${v}) = 'integer'`
      : /DOUBLE|REAL/i.test(c.type)
        ? `(typeof(${v}) IN ('integer', 'real') AND abs(${v}) < 1e308)`
        : `typeof(${v}) = 'text'`;
  return c.notnull || c.pk ? kind : `(${v} IS NULL OR ${kind})`;
}

/** Columns whose values must be unique, checked without the file's indexes (they could be false). */
const UNIQUE: Readonly<Record<string, readonly string[]>> = {
  accounts: ['id'],
  api_keys: ['key_hash'],
  spaces: ['id'],
  devices: ['pk', 'device_id'],
  ledger: ['seq', 'transaction_id'],
  meter_snapshots: ['device_pk'],
  device_reports: ['device_pk'],
  register_continuity: ['device_pk'],
  settings: ['key'],
};

/**
 * [SNAP-3] Every value of every world table is of its column's type (INTEGER columns hold integers,
 * DOUBLE columns finite numbers, TEXT columns text), NULL only where the column allows it, and keys are
 * unique, read from the table itself, not from its (possibly forged) index. The meta row is one row.
 */
export function checkSnapshotValues(db: Database.Database): void {
  const problems: string[] = [];
  const has = tablesOf(db); // [SNAP-10] an older build's file lacks the tables added since
  for (const table of [...FILE_TABLES, META_TABLE].filter((t) => has.has(t))) {
    const cols = columnsOf(db, table);
    // One scan per table; the first bad row says which column and what it holds.
    const flags = cols.map((c, i) => `${allowed(c)} AS "ok${i}", quote("${c.name}") AS "v${i}"`);
    const bad = db
      .prepare(
        `SELECT ${flags.join(', ')} FROM "${table}" NOT INDEXED WHERE NOT (${cols.map(allowed).join(' AND ')}) LIMIT 1`,
      )
      .get() as Record<string, unknown> | undefined;
    if (bad) {
      const i = cols.findIndex((_, k) => !bad[`ok${k}`]);
      const c = cols[i];
      problems.push(
        c
          ? `${table}.${c.name} holds ${String(bad[`v${i}`]).slice(0, 40)}, not ${c.notnull || c.pk ? 'a' : 'NULL or a'} ${c.type}`
          : `${table} holds a value not of its column's type`,
      );
    }
    for (const key of UNIQUE[table] ?? []) {
      const dup = db
        .prepare(
          `SELECT "${key}" AS k FROM "${table}" NOT INDEXED WHERE "${key}" IS NOT NULL GROUP BY "${key}" HAVING count(*) > 1 LIMIT 1`,
        )
        .get() as { k: unknown } | undefined;
      if (dup) problems.push(`${table}.${key} ${JSON.stringify(String(dup.k)).slice(0, 40)} appears twice`);
    }
  }
  const seq = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'ledger'").pluck().get();
  if (seq !== undefined && !Number.isSafeInteger(seq))
    problems.push('sqlite_sequence of ledger is not an integer');
  // Foreign keys of every table but the readings (millions of rows; a reading of no device is never read).
  for (const table of [
    'api_keys',
    'spaces',
    'devices',
    'ledger',
    'meter_snapshots',
    'device_reports',
    'register_continuity',
    'credit_receipts',
  ].filter((t) => has.has(t))) {
    const orphan = db.prepare(`SELECT * FROM pragma_foreign_key_check(?) LIMIT 1`).get(table) as
      | { table: string; parent: string; rowid: number }
      | undefined;
    if (orphan) problems.push(`${table} row ${orphan.rowid} refers to a missing ${orphan.parent} row`);
  }
  const metaRows = db.prepare(`SELECT count(*) AS n FROM ${META_TABLE}`).pluck().get() as number;
  if (metaRows !== 1) problems.push(`${META_TABLE} holds ${metaRows} rows, not 1`);
  else if (problems.length === 0 && !readSnapshotMeta(db))
    problems.push(
      `${META_TABLE}'s clock or created_at is outside 2000-01-01..2100-01-01, or its speed no finite number`,
    );
  if (problems.length > 0) refuse(problems, 'the snapshot holds values this build cannot take');
}

/** SNAP-1..3 on a file: throws SnapshotFileError naming what is wrong (never the file's path). */
export function checkSnapshotFile(file: string): void {
  const db = openSnapshotFile(file);
  try {
    checkSnapshotSchema(db);
    checkSnapshotValues(db);
  } catch (err) {
    if (err instanceof SnapshotFileError) throw err;
    throw new SnapshotFileError(`the file cannot be read as a world snapshot (${(err as Error).message})`);
  } finally {
    db.close();
  }
}

interface MetaRow {
  name: string;
  created_at: number;
  clock: number;
  speed: number;
  devices: number;
  readings: number;
}

/** The row that makes a meterstack database a world snapshot. */
export function writeSnapshotMeta(
  db: Database.Database,
  m: WorldSnapshotMeta & { name: string; devices: number; readings: number },
): void {
  db.exec(META_DDL);
  db.prepare(`INSERT INTO ${META_TABLE} VALUES (?, ?, ?, ?, ?, ?)`).run(
    m.name,
    m.createdAt,
    m.clock,
    m.speed,
    m.devices,
    m.readings,
  );
}

const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const isTime = (v: unknown) => isInt(v) && v >= SNAPSHOT_CLOCK_MIN && v < SNAPSHOT_CLOCK_MAX;

/**
 * What a snapshot file says of itself; null when it has no meta row, or one whose values are not of
 * their kind (times outside SNAPSHOT_CLOCK_MIN..MAX, a speed that is no finite number): a list never
 * fails on one file [SNAP-5]. The world checks the same values against the live routes' bounds.
 */
export function readSnapshotMeta(db: Database.Database): Omit<WorldSnapshotInfo, 'bytes'> | null {
  const m = db.prepare(`SELECT * FROM ${META_TABLE}`).get() as MetaRow | undefined;
  if (!m) return null;
  if (!isTime(m.clock) || !isTime(m.created_at) || typeof m.speed !== 'number' || !Number.isFinite(m.speed))
    return null;
  if (!isInt(m.devices) || !isInt(m.readings) || typeof m.name !== 'string') return null;
  return {
    name: m.name,
    createdAt: m.created_at,
    clock: m.clock,
    speed: m.speed,
    devices: m.devices,
    readings: m.readings,
  };
}
