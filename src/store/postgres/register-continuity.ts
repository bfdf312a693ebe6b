// [MC-7.9] [MC-7.10] Each device's register continuity (epoch, offset), one upserted row per device.

import type pg from 'pg';
import type { RegisterContinuityRow } from '../types.ts';

export class RegisterContinuity {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async save(rows: readonly RegisterContinuityRow[]): Promise<void> {
    const last = [...new Map(rows.map((r) => [r.devicePk, r])).values()];
    if (last.length === 0) return;
    await this.#pool.query(
      `INSERT INTO register_continuity (device_pk, epoch, offset_kwh, updated_at)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::float8[], $4::bigint[])
       ON CONFLICT (device_pk) DO UPDATE SET
         epoch = excluded.epoch, offset_kwh = excluded.offset_kwh, updated_at = excluded.updated_at`,
      [
        last.map((r) => r.devicePk),
        last.map((r) => r.epoch),
        last.map((r) => r.offsetKwh),
        last.map((r) => r.updatedAt),
      ],
    );
  }

  async load(): Promise<RegisterContinuityRow[]> {
    const { rows } = await this.#pool.query<{
      devicePk: string;
      epoch: string;
      offsetKwh: number;
      updatedAt: string;
    }>(
      `SELECT device_pk AS "devicePk", epoch, offset_kwh AS "offsetKwh", updated_at AS "updatedAt"
       FROM register_continuity ORDER BY device_pk`,
    );
    return rows.map((r) => ({
      devicePk: Number(r.devicePk),
      epoch: Number(r.epoch),
      offsetKwh: Number(r.offsetKwh),
      updatedAt: Number(r.updatedAt),
    }));
  }
}
