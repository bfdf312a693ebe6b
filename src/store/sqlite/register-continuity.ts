// [MC-7.9] [MC-7.10] Each device's register continuity (epoch, offset), one upserted row per device.

import type Database from 'better-sqlite3';
import type { RegisterContinuityRow } from '../types.ts';

interface Row {
  device_pk: number;
  epoch: number;
  offset_kwh: number;
  updated_at: number;
}

export class RegisterContinuity {
  readonly #upsert: Database.Statement<[number, number, number, number]>;
  readonly #all: Database.Statement<[], Row>;
  readonly #saveAll: Database.Transaction<(rows: readonly RegisterContinuityRow[]) => void>;

  constructor(db: Database.Database) {
    this.#upsert = db.prepare(`
      INSERT INTO register_continuity (device_pk, epoch, offset_kwh, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (device_pk) DO UPDATE SET
        epoch = excluded.epoch, offset_kwh = excluded.offset_kwh, updated_at = excluded.updated_at`);
    this.#all = db.prepare(
      'SELECT device_pk, epoch, offset_kwh, updated_at FROM register_continuity ORDER BY device_pk',
    );
    this.#saveAll = db.transaction((rows) => {
      for (const r of rows) this.#upsert.run(r.devicePk, r.epoch, r.offsetKwh, r.updatedAt);
    });
  }

  save(rows: readonly RegisterContinuityRow[]): void {
    this.#saveAll(rows);
  }

  load(): RegisterContinuityRow[] {
    return this.#all.all().map((r) => ({
      devicePk: r.device_pk,
      epoch: r.epoch,
      offsetKwh: r.offset_kwh,
      updatedAt: r.updated_at,
    }));
  }
}
