// Recognising SQLite constraint failures, so they can become the Store's own errors.

import Database from 'better-sqlite3';

export function isUniqueViolation(err: unknown): boolean {
  return (
    err instanceof Database.SqliteError &&
    (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}
