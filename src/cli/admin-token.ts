// The admin token `serve` uses when none is given (spec-decisions 180): made once and kept in the file
// `<db>.admin-token` beside a SQLite --db, so a restart keeps the console logged in and saved curl
// lines working. `--admin-token` / METERSTACK_ADMIN_TOKEN win and leave the file alone; :memory: and
// PostgreSQL have no file beside them, so there the token is made for the run.

import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isPostgresUrl } from '../store/postgres/url.ts';

const SUFFIX = '.admin-token';

export const newAdminToken = (): string => `adm_${randomBytes(18).toString('base64url')}`;

/** The file that keeps the admin token of a --db, or undefined where there is none to keep it beside. */
export function adminTokenFile(db: string): string | undefined {
  if (isPostgresUrl(db)) return undefined;
  const path = db.startsWith('sqlite:') ? db.slice('sqlite:'.length) : db;
  if (path === '' || path === ':memory:') return undefined;
  return `${path}${SUFFIX}`;
}

function isDir(path: string): boolean | undefined {
  try {
    return statSync(path).isDirectory();
  } catch {
    return undefined;
  }
}

/**
 * The token kept for `db`, made now if there is none. `create: false` (an API instance) only reads
 * it: the world process makes it. Undefined when there is no place for the file (the store's own
 * open then says why the database cannot be opened: its directory missing, the path a directory).
 */
export function keptAdminToken(
  db: string,
  create: boolean,
): { token: string; file: string; created: boolean } | undefined {
  const file = adminTokenFile(db);
  if (file === undefined) return undefined;
  if (isDir(dirname(file)) !== true || isDir(file.slice(0, -SUFFIX.length)) === true) return undefined;
  let created = false;
  if (create && isDir(file) === undefined) {
    // Written whole under another name and linked into place: a process starting at the same moment
    // sees either no file or the complete one, and a link never replaces a file another one made.
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${newAdminToken()}\n`, { mode: 0o600 });
    try {
      linkSync(tmp, file);
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !create) return undefined;
    throw err;
  }
  const token = text.trim();
  if (token.length < 8 || /\s/.test(token))
    throw new Error(`${file} holds no admin token (8+ characters, no spaces); delete it to make a new one`);
  // Someone may have made it by hand, readable by all: only this user reads it, as SSH's keys.
  if (create) chmodSync(file, 0o600);
  return { token, file, created };
}

/**
 * The admin token of a `serve` run and the banner's note on it, when none was given: the kept one
 * (made now if need be), else one for this run. `apiInstance`: read the world process's, make none.
 */
export function adminTokenOfRun(db: string, apiInstance: boolean): { token: string; note: string } {
  const kept = keptAdminToken(db, !apiInstance);
  if (kept === undefined)
    return {
      token: newAdminToken(),
      note: apiInstance
        ? "(generated: /sim/v1's world operations need the world's token)"
        : '(generated for this run; pass --admin-token to keep one)',
    };
  const where = apiInstance
    ? `(the world's, from ${kept.file})`
    : `(${kept.created ? 'made now and kept' : 'kept'} in ${kept.file}; --admin-token overrides it)`;
  return { token: kept.token, note: where };
}
