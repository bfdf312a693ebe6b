// issue 8 item 20 (spec-decisions 45): where a database may be opened, and errors that name the file.

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoreOpenError } from '../errors.ts';
import { useTempStores } from '../test-helpers.ts';
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
