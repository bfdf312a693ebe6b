// Migrations that shipped never change: databases on disk ran their SQL, and SQLite keeps each CREATE
// statement's text, which a snapshot file's schema is compared with (SNAP-2). The digests are those of
// the two per-dialect migration files before they were merged into schema/ (SQLite: the text to the
// byte; PostgreSQL: the statements, comments and spacing aside). A new migration adds a row.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { POSTGRES, SQLITE } from './dialect.ts';
import { SCHEMA_MIGRATIONS } from './migration.ts';

const SHIPPED: readonly [version: number, sqlite: string, postgres: string][] = [
  [1, '811e4898c5785682', 'a8057cf7ced89604'],
  [2, '70294d4cf6f8d0ca', '3bb8914b7cfb968e'],
  [3, '1a50d63f7aca63a6', '8c487b8806f5bd3c'],
  [4, '88f672132e2d5035', '7310afea3bb68ca7'],
  [5, '097cd4c547ca5194', '4307e4594b4ea586'],
  [6, 'f102466ef77b9e97', '7ddd9866cd9305cd'],
  [7, 'bfadc27a286ecbce', '0505917d482de850'],
  [8, '0d5b888244680bba', '863c3383b862e5df'],
  [9, '78e984b46fb29e30', 'ef4c288b27c0de7e'],
];

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
const statements = (sql: string) =>
  sql
    .replace(/--[^\n]*/g, '')
    .replace(/\s+/g, ' ')
    .trim();

describe('shipped migrations', () => {
  it.each(SHIPPED)(
    'migration %i has the SQL it shipped with, in both dialects',
    (version, sqlite, postgres) => {
      const m = SCHEMA_MIGRATIONS.find((x) => x.version === version)!;
      expect(digest(m.sql(SQLITE))).toBe(sqlite);
      expect(digest(statements(m.sql(POSTGRES)))).toBe(postgres);
    },
  );

  it('versions are 1, 2, 3, ... and every shipped one is still there', () => {
    expect(SCHEMA_MIGRATIONS.map((m) => m.version)).toEqual(SCHEMA_MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_MIGRATIONS.length).toBeGreaterThanOrEqual(SHIPPED.length);
  });
});
