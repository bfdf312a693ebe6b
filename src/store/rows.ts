// Rows as both stores read them and what they become: the row mappers, column lists and SQL-neutral
// rules of the SQLite and PostgreSQL stores, written once. No driver here: each store prepares its own
// statements (`?` or `$n`) around these.

import { createHash } from 'node:crypto';
import { StoreConflictError } from './errors.ts';
import type {
  Account,
  CreditReceipt,
  DeviceRecord,
  KeyExpiry,
  LedgerEntry,
  NewDevice,
  Space,
  SpacePatch,
} from './types.ts';

type Udf = string | null;

/** A BOOLEAN column: SQLite stores 0/1, PostgreSQL answers true/false. */
export type Flag = number | boolean;
const flag = (v: Flag): boolean => v === true || v === 1;

// --- spaces and devices

export interface SpaceRow {
  id: number;
  account_id: number;
  name: string;
  description: string;
  udf1: Udf;
  udf2: Udf;
  udf3: Udf;
  udf4: Udf;
  udf5: Udf;
}

export interface DeviceRow {
  pk: number;
  device_id: string;
  account_id: number;
  space_id: number | null;
  name: string;
  description: string;
  model: DeviceRecord['model'];
  kind: DeviceRecord['kind'];
  public_access: Flag;
  public_hash: string | null;
  is_shared: Flag;
  udf1: Udf;
  udf2: Udf;
  udf3: Udf;
  udf4: Udf;
  udf5: Udf;
  created_at: number;
}

export const SPACE_COLUMNS = 'id, account_id, name, description, udf1, udf2, udf3, udf4, udf5';
export const DEVICE_COLUMNS = `pk, device_id, account_id, space_id, name, description, model, kind, public_access,
  public_hash, is_shared, udf1, udf2, udf3, udf4, udf5, created_at`;

export function toSpace(r: SpaceRow): Space {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    description: r.description,
    udf1: r.udf1,
    udf2: r.udf2,
    udf3: r.udf3,
    udf4: r.udf4,
    udf5: r.udf5,
  };
}

export function toDevice(r: DeviceRow): DeviceRecord {
  return {
    pk: r.pk,
    deviceId: r.device_id,
    accountId: r.account_id,
    spaceId: r.space_id,
    name: r.name,
    description: r.description,
    model: r.model,
    kind: r.kind,
    publicAccess: flag(r.public_access),
    publicHash: r.public_hash,
    isShared: flag(r.is_shared),
    createdAt: r.created_at,
    udf1: r.udf1,
    udf2: r.udf2,
    udf3: r.udf3,
    udf4: r.udf4,
    udf5: r.udf5,
  };
}

/** A new device's values in the order of the stores' INSERT (after it, created_at). */
export const NEW_DEVICE_COLUMNS = `device_id, account_id, space_id, name, description, model, kind, mqtt_secret_hash,
  udf1, udf2, udf3, udf4, udf5, created_at`;

/** A new device's values in NEW_DEVICE_COLUMNS order. */
export function newDeviceValues(d: NewDevice, now: number): unknown[] {
  const { deviceId, accountId, spaceId, name, description, model, kind, mqttSecretHash } = d;
  return [
    deviceId,
    accountId,
    spaceId,
    name,
    description,
    model,
    kind,
    mqttSecretHash,
    d.udf1,
    d.udf2,
    d.udf3,
    d.udf4,
    d.udf5,
    now,
  ];
}

/**
 * A patch's parameters for the stores' PATCH_SET: (set name?, name, set description?, description,
 * set udf1?, udf1, key); an absent field is left as it is. `given` spells "set?" in the dialect.
 */
export function patchParams<F>(patch: SpacePatch, key: number | string, given: (set: boolean) => F) {
  return [
    given(patch.name !== undefined),
    patch.name ?? null,
    given(patch.description !== undefined),
    patch.description ?? null,
    given(patch.udf1 !== undefined),
    patch.udf1 ?? null,
    key,
  ] as [F, string | null, F, string | null, F, Udf, number | string];
}

export const deviceIdTaken = (deviceId: string) =>
  new StoreConflictError(`device_id ${JSON.stringify(deviceId)} is already taken`, 'device_id');

// --- accounts and API keys

export interface AccountRow {
  id: number;
  name: string;
  created_at: number;
}

export interface KeyExpiryRow {
  expires_at: number | null;
  wall_expires_at: number | null;
}

export function toAccount(row: AccountRow): Account {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

/** A key is stored only as its sha256 hex: keys are 32-byte random tokens, so a fast hash is right. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A bare number (or null) is the virtual expiry alone, as callers before wall expiries wrote it. */
export function keyExpiry(e: number | null | KeyExpiry): KeyExpiry {
  return e !== null && typeof e === 'object' ? e : { expiresAt: e, wallExpiresAt: null };
}

/** Whether a key found valid earlier is still unexpired at `now` (virtual) and `wallNow`. */
export function unexpired(k: KeyExpiry, now: number, wallNow: number): boolean {
  return (
    (k.expiresAt === null || k.expiresAt > now) && (k.wallExpiresAt === null || k.wallExpiresAt > wallNow)
  );
}

/** The most keys a store keeps found valid in memory; past it the cache starts over. */
export const VALID_KEYS_CACHED = 10_000;

export const apiKeyTaken = () => new StoreConflictError('this API key is already registered', 'api_key');

// --- the ledger and external meters' credit receipts

export interface LedgerRow {
  seq: number;
  device_pk: number;
  kind: LedgerEntry['kind'];
  amount: number;
  transaction_id: string | null;
  created_at: number;
}

export const LEDGER_COLUMNS = 'seq, device_pk, kind, amount, transaction_id, created_at';

export interface AppendResult {
  entry: LedgerEntry;
  duplicate: boolean;
}

export function toEntry(r: LedgerRow): LedgerEntry {
  return {
    seq: r.seq,
    devicePk: r.device_pk,
    kind: r.kind,
    amount: r.amount,
    transactionId: r.transaction_id,
    createdAt: r.created_at,
  };
}

/** Ledger amounts are whole paise. */
export function assertPaise(amount: number): void {
  if (!Number.isSafeInteger(amount)) {
    throw new TypeError(`ledger amount must be an integer number of paise, not ${amount}`);
  }
}

/**
 * [LEDGER-1] An append whose transaction id is already in the ledger: the first entry again if it is
 * the same device's (a retry), else a conflict.
 */
export function repeatedTransaction(first: LedgerRow, devicePk: number, transactionId: string): AppendResult {
  if (first.device_pk !== devicePk) {
    throw new StoreConflictError(
      `transaction id ${JSON.stringify(transactionId)} belongs to another device`,
      'transaction_id',
    );
  }
  return { entry: toEntry(first), duplicate: true };
}

export interface ReceiptRow {
  ledger_seq: number;
  device_pk: number;
  outcome: CreditReceipt['outcome'];
  balance_before: number | null;
  balance_after: number | null;
  allowance: number;
  reason: string | null;
  received_at: number;
}

export const RECEIPT_COLUMNS =
  'ledger_seq, device_pk, outcome, balance_before, balance_after, allowance, reason, received_at';

/** [LEDGER-4] Recharges of external devices that no receipt answers yet (add `AND l.device_pk = …`). */
export const PENDING_CREDITS = `SELECT ${LEDGER_COLUMNS.split(', ')
  .map((c) => `l.${c}`)
  .join(', ')} FROM ledger l JOIN devices d ON d.pk = l.device_pk
  WHERE d.kind = 'external' AND l.kind = 'recharge'
    AND NOT EXISTS (SELECT 1 FROM credit_receipts r WHERE r.ledger_seq = l.seq)`;

/** A receipt's values in RECEIPT_COLUMNS order. */
export function receiptValues(r: CreditReceipt): unknown[] {
  return [
    r.ledgerSeq,
    r.devicePk,
    r.outcome,
    r.balanceBefore,
    r.balanceAfter,
    r.allowance,
    r.reason,
    r.receivedAt,
  ];
}

export function toReceipt(r: ReceiptRow): CreditReceipt {
  return {
    ledgerSeq: Number(r.ledger_seq),
    devicePk: Number(r.device_pk),
    outcome: r.outcome,
    balanceBefore: r.balance_before === null ? null : Number(r.balance_before),
    balanceAfter: r.balance_after === null ? null : Number(r.balance_after),
    allowance: Number(r.allowance),
    reason: r.reason,
    receivedAt: Number(r.received_at),
  };
}

// --- events and the world owner: both dialects read them through the same aliased SELECT

export const EVENT_SELECT = 'SELECT seq, type, device_id AS "deviceId", vt, body FROM events';

export const OWNER_SELECT = `SELECT pid, host, since, heartbeat_at AS "heartbeatAt", http_url AS "httpUrl", mqtt_url AS "mqttUrl"
  FROM world_owner WHERE id = 1`;
