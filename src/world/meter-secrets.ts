// [SNAP-8] A virtual meter's MQTT password is derived, never stored (issue 18 item 7, spec-decisions
// 140-141): HMAC-SHA256 of its device id under the meter key, a key kept outside the database and so
// outside every snapshot. The store keeps only its sha256 (devices.mqtt_secret_hash, as for external
// devices); the world makes the hash agree with the key when it opens or restores (a snapshot from
// another service, a database of an earlier build). Anyone holding a snapshot or the database holds
// no password a meter logs in with.

import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { DeviceRecord, MeterSnapshot, Store } from '../store/types.ts';
import type { SnapshotBody } from './meter-snapshot.ts';
import { hashSecret } from './secrets.ts';
import type { Log } from './types.ts';

/** Derives each virtual meter's MQTT password from one key. */
export class MeterSecrets {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length < 16) throw new TypeError('a meter key is at least 16 bytes');
    this.#key = key;
  }

  /** A random key: the meters' passwords change with every process (they are re-issued at open). */
  static ephemeral(): MeterSecrets {
    return new MeterSecrets(randomBytes(32));
  }

  /** The password of virtual meter `deviceId`: `mqs_` and 43 base64url characters, like a random one. */
  secretOf(deviceId: string): string {
    return `mqs_${createHmac('sha256', this.#key).update(`meterstack/meter-mqtt/v1/${deviceId}`).digest('base64url')}`;
  }
}

/**
 * The meter key: `given` (--meter-key, METERSTACK_METER_KEY: any text of 16+ characters) if set; else,
 * for a SQLite file, the file `<db>.meter-key` beside it (made on first use, mode 0600: it is not in the
 * database, its snapshots or their exports); else (':memory:', PostgreSQL without a key) one per process.
 */
export function loadMeterSecrets(o: { given?: string; sqliteFile?: string }): MeterSecrets {
  if (o.given !== undefined) return new MeterSecrets(Buffer.from(o.given, 'utf8'));
  if (!o.sqliteFile) return MeterSecrets.ephemeral();
  const file = `${o.sqliteFile}.meter-key`;
  if (!existsSync(file)) {
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process made it first
    }
  }
  chmodSync(file, 0o600);
  const key = readFileSync(file, 'utf8').trim();
  if (key.length < 16)
    throw new TypeError(`${file} holds no meter key (16+ characters); delete it to make one`);
  return new MeterSecrets(Buffer.from(key, 'utf8'));
}

/**
 * [SNAP-8] Every virtual meter's stored hash made that of its derived password (a snapshot from
 * another service, a key changed, a database of an earlier build), and a password an earlier build kept
 * in a meter snapshot dropped from it (`snapshots` updated too). Returns the ids whose hash changed.
 */
export async function issueMeterSecrets(
  store: Pick<Store, 'setMqttSecretHashes' | 'saveMeterSnapshots'>,
  secrets: MeterSecrets,
  devices: readonly DeviceRecord[],
  snapshots: Map<number, MeterSnapshot>,
  log: Log,
): Promise<Set<string>> {
  const virtual = devices.filter((d) => d.kind === 'virtual');
  const changed = await store.setMqttSecretHashes(
    virtual.map((d) => ({ deviceId: d.deviceId, hash: hashSecret(secrets.secretOf(d.deviceId)) })),
  );
  if (changed.length > 0)
    log('info', `${changed.length} virtual meters' MQTT passwords issued from this service's meter key`);
  const plain: MeterSnapshot[] = [];
  for (const d of virtual) {
    const snap = snapshots.get(d.pk);
    if (!snap?.state.includes('"secret"')) continue;
    const { secret: _dropped, ...rest } = JSON.parse(snap.state) as SnapshotBody;
    const stripped = { ...snap, state: JSON.stringify(rest) };
    snapshots.set(d.pk, stripped);
    plain.push(stripped);
  }
  if (plain.length > 0) await store.saveMeterSnapshots(plain);
  return new Set(changed);
}
