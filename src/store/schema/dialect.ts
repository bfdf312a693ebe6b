// What differs between SQLite's and PostgreSQL's spelling of one schema. A migration is written once
// with these slots; everything else in its SQL is the same text in both dialects.

export type DialectName = 'sqlite' | 'postgres';

export interface Dialect {
  name: DialectName;
  /** A surrogate key the database assigns (accounts.id, spaces.id, devices.pk). */
  id: string;
  /** A surrogate key never reused, even after the newest row is deleted (ledger.seq). */
  seq: string;
  /** An integer that points at a key (foreign keys, keys taken from elsewhere). */
  ref: string;
  /** After a table's closing parenthesis: stored as its primary-key B-tree where the dialect can. */
  clustered: string;
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  // A rowid alias. AUTOINCREMENT (sqlite_sequence) keeps a seq from ever being reused.
  id: 'INTEGER PRIMARY KEY',
  seq: 'INTEGER PRIMARY KEY AUTOINCREMENT',
  ref: 'INTEGER',
  // The table is its primary key's B-tree: a device's samples are contiguous and in time order.
  clustered: ' WITHOUT ROWID',
};

export const POSTGRES: Dialect = {
  name: 'postgres',
  // An identity never reuses a value, so one spelling serves both kinds of key.
  id: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  seq: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY',
  ref: 'BIGINT',
  // Heaps with a primary-key index: the rollups answer long ranges, so the heap's order matters little.
  clustered: '',
};

/** A numbered migration written once: its SQL in either dialect (the versions' files, migration.ts lists them). */
export interface SchemaMigration {
  version: number;
  name: string;
  /** The migration's SQL in dialect `d`. */
  sql(d: Dialect): string;
}
