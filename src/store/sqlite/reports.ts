// Meters' last reported info and state (one upserted row per device), saved in batches by the twins.

import type Database from 'better-sqlite3';
import type { DeviceReport } from '../types.ts';

interface ReportRow {
  device_pk: number;
  info: string | null;
  state: string | null;
  updated_at: number;
}

export class Reports {
  readonly #upsert: Database.Statement<[number, string | null, string | null, number]>;
  readonly #all: Database.Statement<[], ReportRow>;
  readonly #saveAll: Database.Transaction<(reports: readonly DeviceReport[]) => void>;

  constructor(db: Database.Database) {
    this.#upsert = db.prepare(`
      INSERT INTO device_reports (device_pk, info, state, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (device_pk) DO UPDATE SET
        info = excluded.info, state = excluded.state, updated_at = excluded.updated_at`);
    this.#all = db.prepare(
      'SELECT device_pk, info, state, updated_at FROM device_reports ORDER BY device_pk',
    );
    this.#saveAll = db.transaction((reports) => {
      for (const r of reports) this.#upsert.run(r.devicePk, r.info, r.state, r.updatedAt);
    });
  }

  save(reports: readonly DeviceReport[]): void {
    this.#saveAll(reports);
  }

  load(): DeviceReport[] {
    return this.#all.all().map((r) => ({
      devicePk: r.device_pk,
      info: r.info,
      state: r.state,
      updatedAt: r.updated_at,
    }));
  }
}
