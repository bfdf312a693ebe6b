// Spaces and devices in PostgreSQL: metadata only. Unlike the SQLite store there is no read-through
// cache: API-only instances rename spaces and devices and create devices (issue 11 §4), so a cached
// row could be another process's stale copy (spec-decisions 78). Each lookup is one indexed query.

import type pg from 'pg';
import {
  DEVICE_COLUMNS,
  type DeviceRow,
  deviceIdTaken,
  NEW_DEVICE_COLUMNS,
  newDeviceValues,
  patchParams,
  SPACE_COLUMNS,
  type SpaceRow,
  toDevice,
  toSpace,
} from '../rows.ts';
import type { DevicePatch, DeviceRecord, NewDevice, Space, SpacePatch } from '../types.ts';
import { isUniqueViolation } from './pg-errors.ts';

/** $1..$6: (set name?, name, set description?, description, set udf1?, udf1); $7 the key. */
const PATCH_SET = `
  name = CASE WHEN $1 THEN $2 ELSE name END,
  description = CASE WHEN $3 THEN $4 ELSE description END,
  udf1 = CASE WHEN $5 THEN $6 ELSE udf1 END`;
const given = (set: boolean) => set;

export class Spaces {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async create(s: Omit<Space, 'id'>): Promise<Space> {
    const { rows } = await this.#pool.query<SpaceRow>(
      `INSERT INTO spaces (account_id, name, description, udf1, udf2, udf3, udf4, udf5)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${SPACE_COLUMNS}`,
      [s.accountId, s.name, s.description, s.udf1, s.udf2, s.udf3, s.udf4, s.udf5],
    );
    return toSpace(rows[0]!);
  }

  async get(id: number): Promise<Space | null> {
    const { rows } = await this.#pool.query<SpaceRow>(`SELECT ${SPACE_COLUMNS} FROM spaces WHERE id = $1`, [
      id,
    ]);
    return rows[0] ? toSpace(rows[0]) : null;
  }

  async list(accountId: number): Promise<Space[]> {
    const { rows } = await this.#pool.query<SpaceRow>(
      `SELECT ${SPACE_COLUMNS} FROM spaces WHERE account_id = $1 ORDER BY id`,
      [accountId],
    );
    return rows.map(toSpace);
  }

  async update(id: number, patch: SpacePatch): Promise<Space | null> {
    const { rows } = await this.#pool.query<SpaceRow>(
      `UPDATE spaces SET ${PATCH_SET} WHERE id = $7 RETURNING ${SPACE_COLUMNS}`,
      patchParams(patch, id, given),
    );
    return rows[0] ? toSpace(rows[0]) : null;
  }
}

export class Devices {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async create(d: NewDevice, now: number): Promise<DeviceRecord> {
    try {
      const { rows } = await this.#pool.query<DeviceRow>(
        `INSERT INTO devices (${NEW_DEVICE_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING ${DEVICE_COLUMNS}`,
        newDeviceValues(d, now),
      );
      return toDevice(rows[0]!);
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw deviceIdTaken(d.deviceId);
      }
      throw err;
    }
  }

  async get(deviceId: string): Promise<DeviceRecord | null> {
    const { rows } = await this.#pool.query<DeviceRow>(
      `SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_id = $1`,
      [deviceId],
    );
    return rows[0] ? toDevice(rows[0]) : null;
  }

  async getByPk(pk: number): Promise<DeviceRecord | null> {
    const { rows } = await this.#pool.query<DeviceRow>(
      `SELECT ${DEVICE_COLUMNS} FROM devices WHERE pk = $1`,
      [pk],
    );
    return rows[0] ? toDevice(rows[0]) : null;
  }

  async list(filter: { accountId?: number; spaceId?: number } = {}): Promise<DeviceRecord[]> {
    const { accountId, spaceId } = filter;
    // NULL means "no filter"; each filter is still an indexed equality when given.
    const { rows } = await this.#pool.query<DeviceRow>(
      `SELECT ${DEVICE_COLUMNS} FROM devices
       WHERE ($1::bigint IS NULL OR account_id = $1) AND ($2::bigint IS NULL OR space_id = $2) ORDER BY pk`,
      [accountId ?? null, spaceId ?? null],
    );
    return rows.map(toDevice);
  }

  async update(deviceId: string, patch: DevicePatch): Promise<DeviceRecord | null> {
    const { rows } = await this.#pool.query<DeviceRow>(
      `UPDATE devices SET ${PATCH_SET} WHERE device_id = $7 RETURNING ${DEVICE_COLUMNS}`,
      patchParams(patch, deviceId, given),
    );
    return rows[0] ? toDevice(rows[0]) : null;
  }

  async setMqttSecretHashes(hashes: readonly { deviceId: string; hash: string }[]): Promise<string[]> {
    if (hashes.length === 0) return [];
    const { rows } = await this.#pool.query<{ device_id: string }>(
      `UPDATE devices d SET mqtt_secret_hash = v.h FROM unnest($1::text[], $2::text[]) AS v(id, h)
       WHERE d.device_id = v.id AND d.mqtt_secret_hash <> v.h RETURNING d.device_id`,
      [hashes.map((h) => h.deviceId), hashes.map((h) => h.hash)],
    );
    return rows.map((r) => r.device_id);
  }

  async mqttSecretHash(deviceId: string): Promise<string | null> {
    const { rows } = await this.#pool.query<{ mqtt_secret_hash: string }>(
      'SELECT mqtt_secret_hash FROM devices WHERE device_id = $1',
      [deviceId],
    );
    return rows[0]?.mqtt_secret_hash ?? null;
  }
}
