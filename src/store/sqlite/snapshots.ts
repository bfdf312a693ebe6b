// Meter snapshots (one upserted row per device) and key/value settings.

import type Database from 'better-sqlite3';
import type { MeterSnapshot } from '../types.ts';

interface SnapshotRow {
  device_pk: number;
  state: string;
  ledger_seq: number;
  updated_at: number;
}

export class Snapshots {
  readonly #upsert: Database.Statement<[number, string, number, number]>;
  readonly #all: Database.Statement<[], SnapshotRow>;
  readonly #saveAll: Database.Transaction<(snapshots: readonly MeterSnapshot[]) => void>;

  constructor(db: Database.Database) {
    this.#upsert = db.prepare(`
      INSERT INTO meter_snapshots (device_pk, state, ledger_seq, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (device_pk) DO UPDATE SET
        state = excluded.state, ledger_seq = excluded.ledger_seq, updated_at = excluded.updated_at`);
    this.#all = db.prepare(
      'SELECT device_pk, state, ledger_seq, updated_at FROM meter_snapshots ORDER BY device_pk',
    );
    this.#saveAll = db.transaction((snapshots) => {
      for (const s of snapshots) this.#upsert.run(s.devicePk, s.state, s.ledgerSeq, s.updatedAt);
    });
  }

  /** All in one transaction: a crash leaves either all the new snapshots or none. */
  save(snapshots: readonly MeterSnapshot[]): void {
    this.#saveAll(snapshots);
  }

  load(): MeterSnapshot[] {
    return this.#all.all().map((r) => ({
      devicePk: r.device_pk,
      state: r.state,
      ledgerSeq: r.ledger_seq,
      updatedAt: r.updated_at,
    }));
  }
}

export class Settings {
  readonly #get: Database.Statement<[string], { value: string }>;
  readonly #set: Database.Statement<[string, string]>;

  constructor(db: Database.Database) {
    this.#get = db.prepare('SELECT value FROM settings WHERE key = ?');
    this.#set = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  get(key: string): string | null {
    return this.#get.get(key)?.value ?? null;
  }

  set(key: string, value: string): void {
    this.#set.run(key, value);
  }
}
