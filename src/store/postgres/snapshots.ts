// Meter snapshots (one upserted row per device), key/value settings and device reports in PostgreSQL.
// Each batch is one statement over unnest()ed arrays, so it is atomic without an explicit transaction.

import type pg from 'pg';
import type { DeviceReport, MeterSnapshot } from '../types.ts';

export class Snapshots {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** All or none: one statement. A device listed twice keeps its last snapshot. */
  async save(snapshots: readonly MeterSnapshot[]): Promise<void> {
    const last = [...new Map(snapshots.map((s) => [s.devicePk, s])).values()];
    if (last.length === 0) return;
    await this.#pool.query(
      `INSERT INTO meter_snapshots (device_pk, state, ledger_seq, updated_at)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
       ON CONFLICT (device_pk) DO UPDATE SET
         state = excluded.state, ledger_seq = excluded.ledger_seq, updated_at = excluded.updated_at`,
      [
        last.map((s) => s.devicePk),
        last.map((s) => s.state),
        last.map((s) => s.ledgerSeq),
        last.map((s) => s.updatedAt),
      ],
    );
  }

  async load(): Promise<MeterSnapshot[]> {
    const { rows } = await this.#pool.query<MeterSnapshot>(
      `SELECT device_pk AS "devicePk", state, ledger_seq AS "ledgerSeq", updated_at AS "updatedAt"
       FROM meter_snapshots ORDER BY device_pk`,
    );
    return rows;
  }
}

export class Reports {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async save(reports: readonly DeviceReport[]): Promise<void> {
    const last = [...new Map(reports.map((r) => [r.devicePk, r])).values()];
    if (last.length === 0) return;
    await this.#pool.query(
      `INSERT INTO device_reports (device_pk, info, state, updated_at)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[])
       ON CONFLICT (device_pk) DO UPDATE SET
         info = excluded.info, state = excluded.state, updated_at = excluded.updated_at`,
      [
        last.map((r) => r.devicePk),
        last.map((r) => r.info),
        last.map((r) => r.state),
        last.map((r) => r.updatedAt),
      ],
    );
  }

  async load(): Promise<DeviceReport[]> {
    const { rows } = await this.#pool.query<DeviceReport>(
      `SELECT device_pk AS "devicePk", info, state, updated_at AS "updatedAt" FROM device_reports ORDER BY device_pk`,
    );
    return rows;
  }
}

export class Settings {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async get(key: string): Promise<string | null> {
    const { rows } = await this.#pool.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [
      key,
    ]);
    return rows[0]?.value ?? null;
  }

  async set(key: string, value: string): Promise<void> {
    await this.#pool.query(
      'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    );
  }
}
