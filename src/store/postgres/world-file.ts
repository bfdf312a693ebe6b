// A PostgreSQL world snapshot to and from the portable file (spec-decisions 110): the SQLite snapshot
// file, so a world moves between the two backends. Rows go across in pages; booleans become 0/1.

import { rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SnapshotFileError } from '../errors.ts';
import { migrate } from '../sqlite/migrations.ts';
import {
  checkSnapshotFile,
  openSnapshotFile,
  readSnapshotMeta,
  tablesOf,
  writeSnapshotMeta,
} from '../sqlite/snapshot-file.ts';
import type { WorldSnapshotInfo } from '../types.ts';
import { WORLD_TABLES } from '../world-tables.ts';
import type { PgWorldSnapshots } from './world-snapshots.ts';

const TABLES = [...WORLD_TABLES, 'settings'] as const;
const PAGE = 20_000;

export async function exportPgSnapshot(
  snapshots: PgWorldSnapshots,
  name: string,
  file: string,
): Promise<boolean> {
  const snap = await snapshots.get(name);
  if (!snap) return false;
  rmSync(file, { force: true });
  const db = new Database(file);
  try {
    migrate(db);
    db.pragma('foreign_keys = OFF');
    for (const t of TABLES) {
      for await (const rows of snapshots.rows(name, t, PAGE)) {
        const cols = Object.keys(rows[0]!);
        const insert = db.prepare(
          `INSERT INTO ${t} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
        );
        db.transaction(() => {
          for (const r of rows)
            insert.run(...cols.map((c) => (typeof r[c] === 'boolean' ? Number(r[c]) : r[c])));
        })();
      }
    }
    const ledger = (await snapshots.identities(name)).get('ledger') ?? 0;
    if (ledger > 0) db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('ledger', ?)").run(ledger);
    writeSnapshotMeta(db, snap);
  } finally {
    db.close();
  }
  return true;
}

export async function importPgSnapshot(
  snapshots: PgWorldSnapshots,
  name: string,
  file: string,
): Promise<WorldSnapshotInfo> {
  checkSnapshotFile(file); // [SNAP-1..3]
  const db = openSnapshotFile(file);
  try {
    const meta = readSnapshotMeta(db);
    if (!meta)
      throw new SnapshotFileError("the file's world_snapshot row holds no valid clock, speed or counts");
    const identities = new Map<string, number>();
    for (const [t, col] of [
      ['accounts', 'id'],
      ['spaces', 'id'],
      ['devices', 'pk'],
    ] as const)
      identities.set(
        t,
        (db.prepare(`SELECT coalesce(max(${col}), 0) AS v FROM ${t}`).get() as { v: number }).v,
      );
    const seq = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'ledger'").get() as
      | { seq: number }
      | undefined;
    identities.set('ledger', seq?.seq ?? 0);
    const has = tablesOf(db); // [SNAP-10] an older build's file lacks the tables added since
    function* pages(t: string): Iterable<Record<string, unknown>[]> {
      if (!has.has(t)) return;
      let page: Record<string, unknown>[] = [];
      for (const row of db.prepare(`SELECT * FROM ${t}`).iterate() as Iterable<Record<string, unknown>>) {
        page.push(row);
        if (page.length === PAGE) {
          yield page;
          page = [];
        }
      }
      if (page.length > 0) yield page;
    }
    return await snapshots.fill({ ...meta, name, bytes: statSync(file).size }, pages, identities);
  } finally {
    db.close();
  }
}
