// Where a database file may be opened, and what an open failure says. Never `mkdir -p`: node's
// recursive mkdir loops forever at 100 % CPU when the kernel answers ENOENT for a directory whose
// parent exists (`/proc/nonexistent/x.db`), and creating a tree of directories from a typo surprises
// whoever made it. So only the file's own directory is created, one level, and only when asked (the
// CLI asks for its default ./data); a missing directory is otherwise a clear error (spec-decisions 45).

import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { StoreOpenError } from '../errors.ts';

/** Makes sure the directory of `path` exists (creating that one level if `createDir`), or throws. */
export function prepareDatabaseDir(path: string, createDir: boolean): void {
  if (kindOf(path) === 'dir')
    throw new StoreOpenError(`cannot open database ${path}: it is a directory`, path);
  const dir = dirname(resolve(path));
  const kind = kindOf(dir);
  if (kind === 'dir') return;
  if (kind === 'other')
    throw new StoreOpenError(`cannot open database ${path}: ${dir} is not a directory`, path);
  if (createDir && kindOf(dirname(dir)) === 'dir') {
    try {
      mkdirSync(dir); // one level, never recursive (see above)
      return;
    } catch (err) {
      throw openError(path, err);
    }
  }
  throw new StoreOpenError(
    `cannot open database ${path}: directory ${dir} does not exist (create it first, or pick another --db)`,
    path,
  );
}

function kindOf(p: string): 'dir' | 'other' | 'missing' {
  try {
    return statSync(p).isDirectory() ? 'dir' : 'other';
  } catch {
    return 'missing';
  }
}

/** Any failure to open or prepare the file, as an error naming the file (SQLite's own text does not). */
export function openError(path: string, err: unknown): StoreOpenError {
  if (err instanceof StoreOpenError) return err;
  const e = err as { message?: string; code?: string };
  const code = typeof e.code === 'string' ? ` (${e.code})` : '';
  return new StoreOpenError(`cannot open database ${path}: ${e.message ?? String(err)}${code}`, path);
}

/**
 * SQLite opens a file it may not write read-only without a word, and the service would then start
 * and fail on its first write. Rewriting the header's user_version with its own value is a write
 * that changes nothing: it fails at once with SQLITE_READONLY on such a file.
 */
export function assertWritable(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  db.pragma(`user_version = ${Math.trunc(version)}`);
}
