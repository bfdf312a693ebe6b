// Spaces and devices: metadata only. A device's space must belong to the device's account (enforced by the
// schema's (space_id, account_id) foreign key).

import type Database from 'better-sqlite3';
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
import type { OtherWriters } from './other-writers.ts';
import { isUniqueViolation } from './sqlite-errors.ts';

/** (set name?, name, set description?, description, set udf1?, udf1, key) — an absent field is left as is. */
type Udf = string | null;
type PatchParams = ReturnType<typeof patchParams<number>>;
const given = (set: boolean) => (set ? 1 : 0);
const PATCH_SET = `
  name = CASE WHEN ? = 1 THEN ? ELSE name END,
  description = CASE WHEN ? = 1 THEN ? ELSE description END,
  udf1 = CASE WHEN ? = 1 THEN ? ELSE udf1 END`;

export class Spaces {
  readonly #insert: Database.Statement<[number, string, string, Udf, Udf, Udf, Udf, Udf], SpaceRow>;
  readonly #get: Database.Statement<[number], SpaceRow>;
  readonly #list: Database.Statement<[number], SpaceRow>;
  readonly #update: Database.Statement<PatchParams, SpaceRow>;
  /** Read-through cache (every GET of a space reads it), dropped when another process writes. */
  readonly #byId: Map<number, Space>;
  readonly #writers: OtherWriters;

  constructor(db: Database.Database, writers: OtherWriters) {
    this.#writers = writers;
    this.#byId = writers.track(new Map());
    this.#insert = db.prepare(`
      INSERT INTO spaces (account_id, name, description, udf1, udf2, udf3, udf4, udf5)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${SPACE_COLUMNS}`);
    this.#get = db.prepare(`SELECT ${SPACE_COLUMNS} FROM spaces WHERE id = ?`);
    this.#list = db.prepare(`SELECT ${SPACE_COLUMNS} FROM spaces WHERE account_id = ? ORDER BY id`);
    this.#update = db.prepare(`UPDATE spaces SET ${PATCH_SET} WHERE id = ? RETURNING ${SPACE_COLUMNS}`);
  }

  create(s: Omit<Space, 'id'>): Space {
    return toSpace(
      this.#insert.get(s.accountId, s.name, s.description, s.udf1, s.udf2, s.udf3, s.udf4, s.udf5)!,
    );
  }

  get(id: number): Space | null {
    this.#writers.check();
    const hit = this.#byId.get(id);
    if (hit) return hit;
    const row = this.#get.get(id);
    if (!row) return null;
    const space = Object.freeze(toSpace(row));
    this.#byId.set(id, space);
    return space;
  }

  list(accountId: number): Space[] {
    return this.#list.all(accountId).map(toSpace);
  }

  update(id: number, patch: SpacePatch): Space | null {
    this.#byId.delete(id);
    const row = this.#update.get(...patchParams(patch, id, given));
    return row ? toSpace(row) : null;
  }
}

export class Devices {
  readonly #insert: Database.Statement<unknown[], DeviceRow>;
  readonly #get: Database.Statement<[string], DeviceRow>;
  readonly #getByPk: Database.Statement<[number], DeviceRow>;
  /** Indexed by which filters are given: none, account, space, both. */
  readonly #list: Database.Statement<number[], DeviceRow>[];
  readonly #update: Database.Statement<PatchParams, DeviceRow>;
  readonly #secretHash: Database.Statement<[string], { mqtt_secret_hash: string }>;
  /**
   * Read-through caches for the per-request lookups (a device by id, the devices of a space): devices
   * are never deleted and a device never changes space; own writes update them, another process's
   * commit drops them (other-writers.ts).
   */
  readonly #byId: Map<string, DeviceRecord>;
  readonly #bySpace: Map<number, readonly DeviceRecord[]>;
  readonly #writers: OtherWriters;
  readonly #db: Database.Database;

  constructor(db: Database.Database, writers: OtherWriters) {
    this.#db = db;
    this.#writers = writers;
    this.#byId = writers.track(new Map());
    this.#bySpace = writers.track(new Map());
    this.#insert = db.prepare(`
      INSERT INTO devices (${NEW_DEVICE_COLUMNS})
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${DEVICE_COLUMNS}`);
    this.#get = db.prepare(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE device_id = ?`);
    this.#getByPk = db.prepare(`SELECT ${DEVICE_COLUMNS} FROM devices WHERE pk = ?`);
    // One statement per combination of filters, so each can use its index.
    this.#list = [
      '',
      'WHERE account_id = ?',
      'WHERE space_id = ?',
      'WHERE account_id = ? AND space_id = ?',
    ].map((where) => db.prepare(`SELECT ${DEVICE_COLUMNS} FROM devices ${where} ORDER BY pk`));
    this.#update = db.prepare(
      `UPDATE devices SET ${PATCH_SET} WHERE device_id = ? RETURNING ${DEVICE_COLUMNS}`,
    );
    this.#secretHash = db.prepare('SELECT mqtt_secret_hash FROM devices WHERE device_id = ?');
  }

  create(d: NewDevice, now: number): DeviceRecord {
    if (d.spaceId !== null) this.#bySpace.delete(d.spaceId);
    try {
      return toDevice(this.#insert.get(...newDeviceValues(d, now))!);
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw deviceIdTaken(d.deviceId);
      }
      throw err;
    }
  }

  get(deviceId: string): DeviceRecord | null {
    this.#writers.check();
    const hit = this.#byId.get(deviceId);
    if (hit) return hit;
    const row = this.#get.get(deviceId);
    if (!row) return null;
    const device = Object.freeze(toDevice(row));
    this.#byId.set(deviceId, device);
    return device;
  }

  getByPk(pk: number): DeviceRecord | null {
    const row = this.#getByPk.get(pk);
    return row ? toDevice(row) : null;
  }

  list(filter: { accountId?: number; spaceId?: number } = {}): DeviceRecord[] {
    const { accountId, spaceId } = filter;
    const params = [accountId, spaceId].filter((v): v is number => v !== undefined);
    const which = (accountId === undefined ? 0 : 1) + (spaceId === undefined ? 0 : 2);
    if (which === 2) {
      this.#writers.check();
      let list = this.#bySpace.get(spaceId!);
      if (!list) {
        list = this.#list[2]!.all(spaceId!).map((r) => Object.freeze(toDevice(r)));
        this.#bySpace.set(spaceId!, list);
      }
      return [...list];
    }
    return this.#list[which]!.all(...params).map(toDevice);
  }

  update(deviceId: string, patch: DevicePatch): DeviceRecord | null {
    const row = this.#update.get(...patchParams(patch, deviceId, given));
    this.#byId.delete(deviceId);
    if (row?.space_id != null) this.#bySpace.delete(row.space_id);
    return row ? toDevice(row) : null;
  }

  setMqttSecretHashes(hashes: readonly { deviceId: string; hash: string }[]): string[] {
    const set = this.#db.prepare(
      'UPDATE devices SET mqtt_secret_hash = ? WHERE device_id = ? AND mqtt_secret_hash <> ?',
    );
    return this.#db.transaction(() =>
      hashes.filter(({ deviceId, hash }) => set.run(hash, deviceId, hash).changes > 0).map((h) => h.deviceId),
    )();
  }

  mqttSecretHash(deviceId: string): string | null {
    return this.#secretHash.get(deviceId)?.mqtt_secret_hash ?? null;
  }
}
