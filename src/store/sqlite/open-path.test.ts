// issue 8 item 20 (spec-decisions 45): where a database may be opened, and errors that name the file.

import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StoreOpenError } from '../errors.ts';
import { useTempStores } from '../test-helpers.ts';
import { assertWritable } from './open-path.ts';
import { openSqliteStore } from './sqlite-store.ts';

const stores = useTempStores();

describe('openSqliteStore: the database directory (issue 8 item 20)', () => {
  it('refuses a file in a missing directory, naming both, and creates nothing', () => {
    const path = join(stores.dir(), 'no', 'such', 'x.db');
    expect(() => openSqliteStore({ path })).toThrow(StoreOpenError);
    expect(() => openSqliteStore({ path })).toThrow(
      `cannot open database ${path}: directory ${join(stores.dir(), 'no', 'such')} does not exist`,
    );
    expect(existsSync(join(stores.dir(), 'no'))).toBe(false);
  });

  it('with createDir makes one level only, never a tree', () => {
    const one = join(stores.dir(), 'data', 'x.db');
    openSqliteStore({ path: one, createDir: true }).close();
    expect(existsSync(one)).toBe(true);
    const two = join(stores.dir(), 'a', 'b', 'x.db');
    expect(() => openSqliteStore({ path: two, createDir: true })).toThrow(/directory .* does not exist/);
    expect(existsSync(join(stores.dir(), 'a'))).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'a directory under /proc fails at once (node`s recursive mkdir spun there forever)',
    () => {
      expect(() => openSqliteStore({ path: '/proc/nonexistent/x.db', createDir: true })).toThrow(
        /cannot open database \/proc\/nonexistent\/x\.db/,
      );
    },
  );

  it('names the file when SQLite cannot open it: a directory, a file that is not a database', () => {
    const dir = join(stores.dir(), 'd.db');
    mkdirSync(dir);
    expect(() => openSqliteStore({ path: dir })).toThrow(`cannot open database ${dir}: it is a directory`);
    const junk = join(stores.dir(), 'junk.db');
    writeFileSync(junk, 'this is not SQLite, just text that is long enough to be a header'.repeat(20));
    expect(() => openSqliteStore({ path: junk })).toThrow(
      new RegExp(`^cannot open database ${junk}: .*not a database.*\\(SQLITE_NOTADB\\)$`),
    );
  });
});

describe('a database the process may not write (issue 8 item 20)', () => {
  it('the write probe fails at once on a connection SQLite opened read-only', () => {
    const path = join(stores.dir(), 'ro.db');
    openSqliteStore({ path }).close();
    const db = new Database(path, { readonly: true }); // what SQLite falls back to on a read-only file
    try {
      expect(() => assertWritable(db)).toThrow(/readonly/);
    } finally {
      db.close();
    }
  });

  it('a read-only file is refused when opened, naming it (as nobody when the tests run as root)', () => {
    const path = join(stores.dir(), 'ro.db');
    openSqliteStore({ path }).close();
    chmodSync(path, 0o444);
    expect(openInChild(path)).toMatch(
      new RegExp(
        `^StoreOpenError: cannot open database ${path}: attempt to write a readonly database \\(SQLITE_READONLY\\)$`,
      ),
    );
  });
});

const NOBODY = 65_534;
const SQLITE_STORE = fileURLToPath(new URL('./sqlite-store.ts', import.meta.url));

/**
 * Opens `path` with openSqliteStore in a child process and returns what happened: `opened`, or the
 * error's name and message. File modes do not stop root (CI runs as root), so a root child first loads
 * everything it needs (the module and SQLite's addon, so the repository need not be readable by nobody),
 * then becomes nobody, which owns the file's directory and the file: only the file's mode stands in its way.
 */
function openInChild(path: string): string {
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    for (const p of [dirname(path), path]) chownSync(p, NOBODY, NOBODY);
  }
  const script = `import Database from 'better-sqlite3';
    import { openSqliteStore } from ${JSON.stringify(pathToFileURL(SQLITE_STORE).href)};
    const [file, drop] = process.argv.slice(1);
    if (drop) {
      new Database(':memory:').close();
      process.setgroups([]);
      process.setgid(${NOBODY});
      process.setuid(${NOBODY});
    }
    try { openSqliteStore({ path: file }).close(); console.log('opened'); }
    catch (e) { console.log(e.name + ': ' + e.message); }`;
  const args = ['--import', 'tsx', '--input-type=module', '-e', script, path, ...(asRoot ? ['drop'] : [])];
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
  if (child.status !== 0) throw new Error(`the child failed (${child.status}): ${child.stderr}`);
  return child.stdout.trim();
}
