// World snapshots on SQLite (spec-decisions 110): each one a SQLite file in a directory beside the
// database (`<db>.snapshots/<name>.sqlite`; a ':memory:' store keeps them in a temp directory that
// dies with the process). Saving is SQLite's online backup of the whole file; restoring ATTACHes the file and replaces every world table's rows in one transaction. The file
// is also the export format, for both backends: it is a meterstack database with a `world_snapshot` row.

import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SnapshotFileError, StoreConflictError } from '../errors.ts';
import type { WorldSnapshotInfo, WorldSnapshotMeta } from '../types.ts';
import { LEDGER_TRIGGERS_SQLITE, WORLD_TABLES } from '../world-tables.ts';
import { MIGRATIONS } from './migrations.ts';

const META_TABLE = 'world_snapshot';
const SUFFIX = '.sqlite';

interface MetaRow {
  name: string;
  created_at: number;
  clock: number;
  speed: number;
  devices: number;
  readings: number;
}

export class SqliteWorldSnapshots {
  readonly #db: Database.Database;
  readonly #dir: string;
  readonly #path: string;
  /** Called after a restore or reset replaced rows behind the read-through caches. */
  readonly #replaced: () => void;

  constructor(db: Database.Database, path: string, replaced: () => void) {
    this.#db = db;
    this.#dir =
      path === ':memory:' ? mkdtempSync(join(tmpdir(), 'meterstack-snapshots-')) : `${path}.snapshots`;
    this.#replaced = replaced;
    this.#path = path;
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
    return true;
  }

  /** Where the snapshot's file is (it is its own export), or null. */
  exportFile(name: string): string | null {
    const file = this.#file(name);
    return existsSync(file) ? file : null;
  }

  /** Takes `from` (checked: one of ours, of this schema) in as snapshot `name`. */
  import(name: string, from: string): WorldSnapshotInfo {
    const file = this.#file(name);
    if (existsSync(file)) throw new StoreConflictError(`snapshot ${name} already exists`, 'snapshot');
    checkSnapshotFile(from);
    mkdirSync(this.#dir, { recursive: true });
    copyFileSync(from, `${file}.part`);
    const snap = new Database(`${file}.part`);
    try {
      snap.prepare(`UPDATE ${META_TABLE} SET name = ?`).run(name);
    } finally {
      snap.close();
    }
    renameSync(`${file}.part`, file);
    return this.#info(file)!;
  }

  /**
   * Replaces every world table's rows by the snapshot's in one transaction; settings in `keep` keep
   * their present value. null when there is no such snapshot.
   */
  async restore(name: string, keep: readonly string[]): Promise<WorldSnapshotInfo | null> {
    const info = this.get(name);
    if (!info) return null;
    if (this.#path === ':memory:') this.#restoreByCopy(this.#file(name), keep);
    else await this.#restoreByBackup(this.#file(name), keep);
    return info;
  }

  /**
   * A file-backed store: a working copy of the snapshot takes what is not the world from the live file
   * (the events journal, the owner lease, the kept settings, the schema's bookkeeping), then SQLite's
   * backup writes it over the live file in one step (one write transaction: readers see the old world
   * or the new one). 4× faster than copying the rows (bench/snapshots.ts).
   */
  async #restoreByBackup(file: string, keep: readonly string[]): Promise<void> {
    const work = join(this.#dir, `.restoring-${process.pid}.sqlite`);
    copyFileSync(file, work);
    const w = new Database(work);
    try {
      w.prepare('ATTACH DATABASE ? AS live').run(this.#path);
      const marks = keep.map(() => '?').join(', ') || 'NULL';
      w.transaction(() => {
        for (const t of ['events', 'world_owner', 'schema_migrations'])
          w.exec(`DELETE FROM main.${t}; INSERT INTO main.${t} SELECT * FROM live.${t};`);
        w.prepare(`DELETE FROM main.settings WHERE key IN (${marks})`).run(...keep);
        w.prepare(`INSERT INTO main.settings SELECT * FROM live.settings WHERE key IN (${marks})`).run(
          ...keep,
        );
        w.exec(`DROP TABLE main.${META_TABLE}`);
      })();
      w.exec('DETACH DATABASE live');
      // One step: the first call copies nothing, the next every page (0x7fffffff at a time).
      await w.backup(this.#path, { progress: () => 0x7fffffff });
    } finally {
      w.close();
      for (const f of [work, `${work}-wal`, `${work}-shm`, `${work}-journal`]) rmSync(f, { force: true });
      this.#replaced();
    }
  }

  /** The same, from any snapshot file (checked first): `serve --from-snapshot`. */
  async restoreFile(file: string, keep: readonly string[]): Promise<void> {
    checkSnapshotFile(file);
    if (this.#path === ':memory:') this.#restoreByCopy(file, keep);
    else await this.#restoreByBackup(file, keep);
  }

  /** A ':memory:' store: ATTACH the file and copy every world table's rows in one transaction. */
  #restoreByCopy(file: string, keep: readonly string[]): void {
    const db = this.#db;
    db.prepare('ATTACH DATABASE ? AS snap').run(file);
    // Off around the copy, so SQLite copies each table as it is (its transfer optimization) and the
    // children need not wait for their parents: the snapshot was consistent when it was taken.
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
      for (const t of ['samples', 'samples_15m', 'samples_1d', 'device_reports', 'register_continuity'])
        this.#db.prepare(`DELETE FROM ${t} WHERE device_pk = ?`).run(devicePk);
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

  #info(file: string): WorldSnapshotInfo | null {
    if (!existsSync(file)) return null;
    const snap = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const meta = readSnapshotMeta(snap);
      return meta && { ...meta, bytes: statSync(file).size };
    } finally {
      snap.close();
    }
  }
}

/** The row that makes a meterstack database a world snapshot. */
export function writeSnapshotMeta(
  db: Database.Database,
  m: WorldSnapshotMeta & { name: string; devices: number; readings: number },
): void {
  db.exec(
    `CREATE TABLE ${META_TABLE} (name TEXT NOT NULL, created_at BIGINT NOT NULL, clock BIGINT NOT NULL,
       speed DOUBLE PRECISION NOT NULL, devices INTEGER NOT NULL, readings INTEGER NOT NULL)`,
  );
  db.prepare(`INSERT INTO ${META_TABLE} VALUES (?, ?, ?, ?, ?, ?)`).run(
    m.name,
    m.createdAt,
    m.clock,
    m.speed,
    m.devices,
    m.readings,
  );
}

/** What a snapshot file says of itself; null when it has no meta row. */
export function readSnapshotMeta(db: Database.Database): Omit<WorldSnapshotInfo, 'bytes'> | null {
  const m = db.prepare(`SELECT * FROM ${META_TABLE}`).get() as MetaRow | undefined;
  if (!m) return null;
  return {
    name: m.name,
    createdAt: m.created_at,
    clock: m.clock,
    speed: m.speed,
    devices: m.devices,
    readings: m.readings,
  };
}

/** The world tables emptied, then (from schema `from`, if any) filled; inside the caller's transaction. */
function replaceWorld(db: Database.Database, keep: readonly string[], from: string | null): void {
  db.exec('DROP TRIGGER ledger_no_update; DROP TRIGGER ledger_no_delete;');
  for (const table of [...WORLD_TABLES].reverse()) db.exec(`DELETE FROM main.${table}`);
  if (from)
    for (const table of WORLD_TABLES) db.exec(`INSERT INTO main.${table} SELECT * FROM ${from}.${table}`);
  const marks = keep.map(() => '?').join(', ');
  db.prepare(`DELETE FROM main.settings WHERE key NOT IN (${marks || 'NULL'})`).run(...keep);
  if (from)
    db.prepare(
      `INSERT INTO main.settings SELECT * FROM ${from}.settings WHERE key NOT IN (${marks || 'NULL'})`,
    ).run(...keep);
  db.exec(LEDGER_TRIGGERS_SQLITE);
}

/**
 * Throws SnapshotFileError unless `file` is a world snapshot of this build's schema: a SQLite file with a
 * `world_snapshot` row, every world table, and the newest migration this build knows.
 */
export function checkSnapshotFile(file: string): void {
  if (!existsSync(file)) throw new SnapshotFileError(`${file}: no such file`);
  let snap: Database.Database;
  try {
    snap = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new SnapshotFileError(`${file}: not a SQLite file (${(err as Error).message})`);
  }
  try {
    const tables = new Set(
      (snap.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    const missing = [META_TABLE, 'schema_migrations', 'settings', ...WORLD_TABLES].filter(
      (t) => !tables.has(t),
    );
    if (missing.length > 0)
      throw new SnapshotFileError(
        `${file}: not a meterstack world snapshot (no table ${missing.join(', ')})`,
      );
    const version = (
      snap.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }
    ).v;
    const known = MIGRATIONS.at(-1)!.version;
    if (version !== known)
      throw new SnapshotFileError(
        `${file}: a snapshot of schema version ${version}; this build restores version ${known} only`,
      );
  } catch (err) {
    if (err instanceof SnapshotFileError) throw err;
    throw new SnapshotFileError(`${file}: not a SQLite file (${(err as Error).message})`);
  } finally {
    snap.close();
  }
}
