// World snapshots on SQLite (spec-decisions 110, 136-138): each one a SQLite file in a directory beside
// the database (`<db>.snapshots/<name>.sqlite`; a ':memory:' store keeps them in a temp directory that
// dies with the process). Saving is SQLite's online backup of the whole file; restoring checks the file
// (snapshot-file.ts, SNAP-1..3), ATTACHes it and copies every world table's rows into the live schema in
// one transaction. The file is also the export format, for both backends: it is a meterstack database
// with a `world_snapshot` row.

import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { SnapshotFileError, StoreConflictError } from '../errors.ts';
import type {
  LedgerEntry,
  MeterSnapshot,
  WorldSnapshotContents,
  WorldSnapshotInfo,
  WorldSnapshotMeta,
} from '../types.ts';
import {
  LEDGER_TRIGGERS_SQLITE,
  READING_TABLES,
  snapshotContentsSql,
  WORLD_TABLES,
} from '../world-tables.ts';
import {
  checkSnapshotFile,
  checkSnapshotSchema,
  checkSnapshotValues,
  columnListOf,
  openSnapshotFile,
  readSnapshotMeta,
  tablesOf,
  writeSnapshotMeta,
} from './snapshot-file.ts';

const SUFFIX = '.sqlite';
/** Tables that are their own key's B-tree and have no other index (migrations.ts). */
const BY_KEY = new Set(['samples', 'samples_15m', 'samples_1d']);

export class SqliteWorldSnapshots {
  readonly #db: Database.Database;
  readonly #dir: string;
  /** Called after a restore or reset replaced rows behind the read-through caches. */
  readonly #replaced: () => void;

  constructor(db: Database.Database, path: string, replaced: () => void) {
    this.#db = db;
    this.#dir =
      path === ':memory:' ? mkdtempSync(join(tmpdir(), 'meterstack-snapshots-')) : `${path}.snapshots`;
    this.#replaced = replaced;
  }

  #file(name: string): string {
    return join(this.#dir, `${name}${SUFFIX}`);
  }

  async save(name: string, meta: WorldSnapshotMeta): Promise<WorldSnapshotInfo> {
    const file = this.#file(name);
    if (existsSync(file)) throw new StoreConflictError(`snapshot ${name} already exists`, 'snapshot');
    mkdirSync(this.#dir, { recursive: true });
    const part = `${file}.part`;
    rmSync(part, { force: true });
    // SQLite's online backup: a page copy (1.7× faster than VACUUM INTO at 1,000 meters × 30 days,
    // bench/snapshots.ts); writes made meanwhile on this connection are copied too, so it ends consistent.
    await this.#db.backup(part);
    const snap = new Database(part);
    try {
      snap.pragma('journal_mode = DELETE');
      // The journal keeps going and the lease is the process's: neither is part of a world.
      snap.exec('DELETE FROM events; DELETE FROM world_owner;');
      const count = (table: string) =>
        (snap.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      writeSnapshotMeta(snap, { ...meta, name, devices: count('devices'), readings: count('samples') });
    } finally {
      snap.close();
    }
    renameSync(part, file);
    writeFileSync(`${file}.checked`, stamp(file)); // its rows are this store's own
    return this.#info(file)!;
  }

  list(): WorldSnapshotInfo[] {
    if (!existsSync(this.#dir)) return [];
    return readdirSync(this.#dir)
      .filter((f) => f.endsWith(SUFFIX))
      .flatMap((f) => this.#info(join(this.#dir, f)) ?? [])
      .sort((a, b) => a.createdAt - b.createdAt || a.name.localeCompare(b.name));
  }

  get(name: string): WorldSnapshotInfo | null {
    return this.#info(this.#file(name));
  }

  delete(name: string): boolean {
    const file = this.#file(name);
    if (!existsSync(file)) return false;
    rmSync(file);
    rmSync(`${file}.checked`, { force: true });
    return true;
  }

  /** The snapshot's devices, meters and ledger, read with none of the file's SQL able to run [SNAP-1]. */
  read(name: string): WorldSnapshotContents | null {
    const file = this.#file(name);
    if (!existsSync(file)) return null;
    this.#check(file); // a file of no valid meta row is refused here, by name of what is wrong
    const info = this.get(name);
    if (!info) return null;
    const db = openSnapshotFile(file);
    const sql = snapshotContentsSql('');
    try {
      return {
        info,
        devices: db.prepare(sql.devices).all() as WorldSnapshotContents['devices'],
        meters: db.prepare(sql.meters).all() as MeterSnapshot[],
        ledger: db.prepare(sql.ledger).all() as LedgerEntry[],
      };
    } finally {
      db.close();
    }
  }

  /** Where the snapshot's file is (it is its own export), or null. */
  exportFile(name: string): string | null {
    const file = this.#file(name);
    return existsSync(file) ? file : null;
  }

  /**
   * Takes `from` in as snapshot `name` [SNAP-1..3]: checked first (its schema this build's, its values
   * of their types), then copied byte for byte. No SQL of the file runs: the name it goes by is its
   * file's name, not written into it.
   */
  import(name: string, from: string): WorldSnapshotInfo {
    const file = this.#file(name);
    if (existsSync(file)) throw new StoreConflictError(`snapshot ${name} already exists`, 'snapshot');
    checkSnapshotFile(from);
    mkdirSync(this.#dir, { recursive: true });
    copyFileSync(from, `${file}.part`);
    renameSync(`${file}.part`, file);
    writeFileSync(`${file}.checked`, stamp(file));
    return this.#info(file)!;
  }

  /**
   * [SNAP-1] [SNAP-2] Replaces every world table's rows by the snapshot's in one transaction, rows of
   * the checked file copied into the live schema, never the file's schema: the live database keeps its
   * own tables, indexes and ledger triggers, and a row that breaks one of its constraints aborts the
   * whole transaction. Settings in `keep` keep their present value. null when there is no such
   * snapshot. The file is checked first (it may have been taken in by an earlier build, unchecked).
   */
  async restore(name: string, keep: readonly string[]): Promise<WorldSnapshotInfo | null> {
    const file = this.#file(name);
    if (!existsSync(file)) return null;
    this.#check(file);
    const info = this.get(name);
    if (!info) return null;
    this.#restoreByCopy(file, keep);
    return info;
  }

  /**
   * [SNAP-1..3] A snapshot file is checked in full once: a file this store wrote (save) or took in
   * (import, after its check) gets a `.checked` note of its inode, size and mtime beside it; a restore
   * of a file so noted re-checks its schema only (milliseconds), any other file (or one changed since)
   * in full (its every row: about as long as the copy itself, bench/snapshots.ts).
   */
  #check(file: string): void {
    const db = openSnapshotFile(file);
    try {
      checkSnapshotSchema(db);
      const note = `${file}.checked`;
      if (existsSync(note) && readFileSync(note, 'utf8') === stamp(file)) return;
      checkSnapshotValues(db);
    } catch (err) {
      if (err instanceof SnapshotFileError) throw err;
      throw new SnapshotFileError(`the file cannot be read as a world snapshot (${(err as Error).message})`);
    } finally {
      db.close();
    }
    writeFileSync(`${file}.checked`, stamp(file));
  }

  /** ATTACH the (checked) file and copy every world table's rows in one transaction. */
  #restoreByCopy(file: string, keep: readonly string[]): void {
    const db = this.#db;
    // [SNAP-1] Nothing of the attached file's schema may call a function with side effects.
    db.pragma('trusted_schema = OFF');
    db.prepare('ATTACH DATABASE ? AS snap').run(file);
    // Off around the copy, so the children need not wait for their parents (foreign keys were checked
    // in the file, snapshot-file.ts).
    db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        replaceWorld(db, keep, 'snap');
        const seq = db.prepare("SELECT seq FROM snap.sqlite_sequence WHERE name = 'ledger'").get() as
          | { seq: number }
          | undefined;
        db.prepare("DELETE FROM sqlite_sequence WHERE name = 'ledger'").run();
        if (seq) db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('ledger', ?)").run(seq.seq);
      }).immediate();
    } finally {
      db.pragma('foreign_keys = ON');
      db.exec('DETACH DATABASE snap');
      this.#replaced();
    }
  }

  deleteDeviceReadings(devicePk: number): void {
    this.#db.transaction(() => {
      for (const t of READING_TABLES) this.#db.prepare(`DELETE FROM ${t} WHERE device_pk = ?`).run(devicePk);
    })();
  }

  /** Empties every world table in one transaction; settings in `keep` stay, the others go. */
  reset(keep: readonly string[]): void {
    const db = this.#db;
    db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => replaceWorld(db, keep, null)).immediate();
    } finally {
      db.pragma('foreign_keys = ON');
      this.#replaced();
    }
  }

  /**
   * What the file says of itself, under its file's name; null when it says nothing this build can show
   * (a file taken in unchecked by an earlier build: listed by no one, still deletable) [SNAP-5].
   */
  #info(file: string): WorldSnapshotInfo | null {
    if (!existsSync(file)) return null;
    let snap: Database.Database;
    try {
      snap = openSnapshotFile(file);
    } catch {
      return null;
    }
    try {
      const meta = readSnapshotMeta(snap);
      const name = basename(file, SUFFIX);
      return meta && { ...meta, name, bytes: statSync(file).size };
    } catch {
      return null;
    } finally {
      snap.close();
    }
  }
}

/** The world tables emptied, then (from schema `from`, if any) filled; inside the caller's transaction. */
function replaceWorld(db: Database.Database, keep: readonly string[], from: string | null): void {
  db.exec('DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete;');
  // [SNAP-9] A revocation outlives a restore: a key revoked after the snapshot stays revoked.
  const revoked = db
    .prepare('SELECT key_hash, revoked_at FROM main.api_keys WHERE revoked_at IS NOT NULL')
    .all() as { key_hash: string; revoked_at: number }[];
  for (const table of [...WORLD_TABLES].reverse()) db.exec(`DELETE FROM main.${table}`);
  // [SNAP-2] Row by row into the live tables (`WHERE true`), their constraints checked and their
  // indexes built here: SQLite's transfer optimization would copy the file's index pages as they are.
  // The readings' tables have no index but their own key (WITHOUT ROWID), so they are copied by it.
  // [SNAP-10] By the file's own columns: an older build's file lacks the columns and tables added since.
  const has = from ? tablesOf(db, from) : new Set<string>();
  for (const table of WORLD_TABLES.filter((t) => has.has(t))) {
    const cols = columnListOf(db, table, from!);
    db.exec(
      `INSERT INTO main.${table} (${cols}) SELECT ${cols} FROM ${from}.${table}${BY_KEY.has(table) ? '' : ' WHERE true'}`,
    );
  }
  const revoke = db.prepare(
    'UPDATE main.api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL',
  );
  for (const key of revoked) revoke.run(key.revoked_at, key.key_hash);
  const marks = keep.map(() => '?').join(', ');
  db.prepare(`DELETE FROM main.settings WHERE key NOT IN (${marks || 'NULL'})`).run(...keep);
  if (from)
    db.prepare(
      `INSERT INTO main.settings SELECT * FROM ${from}.settings WHERE key NOT IN (${marks || 'NULL'})`,
    ).run(...keep);
  db.exec(LEDGER_TRIGGERS_SQLITE);
}

export { readSnapshotMeta, writeSnapshotMeta };

/** What a `.checked` note says of the file it is beside: the file as it was when checked. */
function stamp(file: string): string {
  const s = statSync(file);
  return `${s.ino} ${s.size} ${s.mtimeMs}`;
}
