// The one storage interface, implemented by SQLite (sqlite/) and PostgreSQL (postgres/).
// Every method is async so a networked store fits without changing callers.

import type { MeterModel } from '../../firmware-protocol/mqtt/vocabulary.ts';

export interface Account {
  id: number;
  name: string;
  createdAt: number;
}

/**
 * When an API key stops working, exclusive; null: never. `expiresAt` is on the virtual clock
 * (spec-decisions 34), `wallExpiresAt` on the wall clock: a console session key, which a clock advance
 * must not end [CON-4].
 */
export interface KeyExpiry {
  expiresAt: number | null;
  wallExpiresAt: number | null;
}

export interface Udfs {
  udf1: string | null;
  udf2: string | null;
  udf3: string | null;
  udf4: string | null;
  udf5: string | null;
}

export interface Space extends Udfs {
  id: number;
  accountId: number;
  name: string;
  description: string;
}

export interface DeviceRecord extends Udfs {
  /** Internal, stable key (device_id changes when a meter is replaced). */
  pk: number;
  deviceId: string;
  accountId: number;
  spaceId: number | null;
  name: string;
  description: string;
  model: MeterModel;
  /** Virtual meters run in this process; 'external' ones (bridged, real) only talk over MQTT. */
  kind: 'virtual' | 'external';
  publicAccess: boolean;
  publicHash: string | null;
  isShared: boolean;
  createdAt: number;
}

export type NewDevice = Omit<
  DeviceRecord,
  'pk' | 'createdAt' | 'publicAccess' | 'publicHash' | 'isShared'
> & {
  /** scrypt/sha256 hash of the meter's MQTT secret; the secret itself is never stored. */
  mqttSecretHash: string;
};

export interface SpacePatch {
  name?: string;
  description?: string;
  udf1?: string | null;
}
export type DevicePatch = SpacePatch;

/** One telemetry sample as stored: one row per (device, ts), a column per property. */
export interface SampleRow {
  devicePk: number;
  ts: number;
  energy: number | null;
  active_power: number | null;
  voltage: number | null;
  current: number | null;
  power_factor: number | null;
  apparent_power: number | null;
  reactive_power: number | null;
  balance: number | null;
}

export const SAMPLE_PROPERTIES = [
  'energy',
  'active_power',
  'voltage',
  'current',
  'power_factor',
  'apparent_power',
  'reactive_power',
] as const;
export type SampleProperty = (typeof SAMPLE_PROPERTIES)[number];

/** History bucket sizes, minutes. Buckets are aligned to Asia/Kolkata (+05:30) wall-clock time. */
export type BucketMinutes = 15 | 30 | 60 | 1440;

/** The times of a device's oldest and newest stored samples, ms since epoch. */
export interface SampleSpan {
  first: number;
  last: number;
}

export interface HistoryPoint {
  /** Start of the bucket, ms since epoch. */
  bucketStart: number;
  /** ts of the last sample inside the bucket. */
  ts: number;
  value: number;
}

export interface LedgerEntry {
  seq: number;
  devicePk: number;
  kind: 'opening' | 'recharge' | 'adjustment';
  /** Integer paise; positive credits the meter. */
  amount: number;
  transactionId: string | null;
  createdAt: number;
}

export interface MeterSnapshot {
  devicePk: number;
  /** Serialized MeterState (simulator/meter/serialize.ts). */
  state: string;
  /** Highest ledger seq the snapshot already includes. */
  ledgerSeq: number;
  updatedAt: number;
}

/**
 * [LEDGER-4] What an external meter answered to a ledger credit: written once, when its reply comes, and
 * never changed (the ledger stays append-only). A credit without one is pending.
 */
export interface CreditReceipt {
  ledgerSeq: number;
  devicePk: number;
  /** applied: the meter holds the credit (its ack); refused: its error reply, nothing credited. */
  outcome: 'applied' | 'refused';
  /** [LEDGER-6] The newest balance the meter reported before the credit was sent; null when unknown. */
  balanceBefore: number | null;
  /** The balance in the meter's ack, integer paise; null for a refusal. */
  balanceAfter: number | null;
  /** [LEDGER-6] Paise the meter may have billed between `balanceBefore` and its ack. */
  allowance: number;
  /** A refusal's code and message, as the meter gave them. */
  reason: string | null;
  receivedAt: number;
}

/** What the ledger says a device was credited: the sum of its entries, integer paise, and the newest seq. */
export interface LedgerTotal {
  devicePk: number;
  total: number;
  lastSeq: number;
}

/**
 * The world owner lease: one process at a time runs the world (meters, twins, ledger writes) on a store.
 * See store/README.md "World owner lease".
 */
export interface WorldOwner {
  pid: number;
  host: string;
  /** When it took the lease, wall-clock ms. */
  since: number;
  /** Its last renewal, wall-clock ms. */
  heartbeatAt: number;
  httpUrl: string | null;
  mqttUrl: string | null;
}

export interface OwnerClaim {
  /** Random, per process start: what renew/describe/release name. */
  token: string;
  pid: number;
  host: string;
  now: number;
  /** A holder on another host whose heartbeat is older than this is taken to be gone. */
  expiryMs: number;
  /** Whether a process of this host is alive (process.kill(pid, 0)). */
  isAlive: (pid: number) => boolean;
}

export type OwnerClaimResult =
  | { ok: true /** A holder found gone and replaced, if any. */; replaced: WorldOwner | null }
  | { ok: false; holder: WorldOwner };

/** A meter's last reported info and state, as the JSON payloads it published (MC-5.4). */
export interface DeviceReport {
  devicePk: number;
  /** The info payload as JSON text, or null if the meter never sent one. */
  info: string | null;
  /** The state payload as JSON text, or null if the meter never sent one. */
  state: string | null;
  updatedAt: number;
}

/**
 * [MC-7.9] [MC-7.10] What joins a device's register values into one continuous energy series: the newest
 * register epoch taken and the kWh added to every register value (src/devices/register-continuity.ts).
 */
export interface RegisterContinuityRow {
  devicePk: number;
  epoch: number;
  offsetKwh: number;
  updatedAt: number;
}

/**
 * An event kept in the store: money and meter state (src/events DURABLE_TYPES), so they outlive the
 * in-memory journal and a restart. `body` is the whole event as JSON; the columns are what queries use.
 */
export interface StoredEvent {
  seq: number;
  type: string;
  deviceId: string | null;
  /** Virtual time of the event, ms since epoch. */
  vt: number;
  body: string;
}

export interface StoredEventQuery {
  /** afterSeq < seq ≤ upToSeq. */
  afterSeq: number;
  upToSeq: number;
  /** Only these types; undefined: all. */
  types?: readonly string[];
  deviceId?: string;
  limit: number;
  /** The newest `limit` instead of the oldest. The answer is ascending by seq either way. */
  newest?: boolean;
}

/** What a world snapshot says of itself when saved (spec-decisions 110). */
export interface WorldSnapshotMeta {
  /** Wall ms when it was taken. */
  createdAt: number;
  /** The virtual clock it was taken at, and the clock's speed then. */
  clock: number;
  speed: number;
}

export interface WorldSnapshotInfo extends WorldSnapshotMeta {
  name: string;
  devices: number;
  /** Stored telemetry samples. */
  readings: number;
  /** Size of its portable file. */
  bytes: number;
}

/** What a world snapshot holds that its values are checked by before a restore (SNAP-4). */
export interface WorldSnapshotContents {
  info: WorldSnapshotInfo;
  devices: { pk: number; deviceId: string; kind: string }[];
  meters: MeterSnapshot[];
  /** Every ledger entry, by seq. */
  ledger: LedgerEntry[];
}

/**
 * World snapshots (issue 12 §2): every world table (world-tables.ts) saved by name inside the store,
 * put back in one transaction, and carried between stores as a SQLite file (either backend).
 * Names match SNAPSHOT_NAME; the caller checks them.
 */
export interface WorldSnapshotStore {
  /** StoreConflictError when `name` exists. */
  saveWorldSnapshot(name: string, meta: WorldSnapshotMeta): Promise<WorldSnapshotInfo>;
  listWorldSnapshots(): Promise<WorldSnapshotInfo[]>;
  getWorldSnapshot(name: string): Promise<WorldSnapshotInfo | null>;
  /**
   * Replaces every world table's rows with the snapshot's, in one transaction; the settings named in
   * `keep` keep their present value. null (and nothing changed) when there is no such snapshot.
   */
  restoreWorldSnapshot(name: string, keep: readonly string[]): Promise<WorldSnapshotInfo | null>;
  deleteWorldSnapshot(name: string): Promise<boolean>;
  /** Writes the snapshot's portable file to `file`; false when there is no such snapshot. */
  exportWorldSnapshot(name: string, file: string): Promise<boolean>;
  /** The snapshot's devices, meter snapshots and ledger, for the world's checks (SNAP-4); null if none. */
  readWorldSnapshot(name: string): Promise<WorldSnapshotContents | null>;
  /** Takes a portable file in as snapshot `name`: SnapshotFileError if it is not one, StoreConflictError if the name exists. */
  importWorldSnapshot(name: string, file: string): Promise<WorldSnapshotInfo>;
  /** Empties every world table in one transaction; settings named in `keep` stay, the others go. */
  resetWorld(keep: readonly string[]): Promise<void>;
  /** Deletes one device's samples, rollups and reports in one transaction (a per-device reset). */
  deleteDeviceReadings(devicePk: number): Promise<void>;
}

/** An answer now, or a promise of it when it needs I/O: see Store.getDeviceNow. */
export type AtOnce<T> = T | Promise<T>;

export interface Store extends WorldSnapshotStore {
  close(): Promise<void>;

  createAccount(name: string, now: number): Promise<Account>;
  getAccount(id: number): Promise<Account | null>;
  /** Stores only a hash of `key`; `expiresAt` alone is the virtual expiry (no wall-clock one). */
  addApiKey(accountId: number, key: string, expiresAt: number | null | KeyExpiry, now: number): Promise<void>;
  /**
   * The account of a key that exists, is not revoked and has not expired at `now` (virtual) nor at
   * `wallNow` (the wall clock; Date.now() when not given).
   */
  accountForApiKey(key: string, now: number, wallNow?: number): Promise<Account | null>;
  /**
   * accountForApiKey's answer when the store has it at once, without waiting on I/O (SQLite always; a
   * key PostgreSQL's cache holds), else `undefined`: ask accountForApiKey. Every v2 request
   * authenticates, and a promise per request is a measurable share of a cached GET (issue 19 step 7).
   */
  accountForApiKeyNow(key: string, now: number, wallNow: number): Account | null | undefined;
  revokeApiKey(key: string, now: number): Promise<boolean>;

  createSpace(space: Omit<Space, 'id'>): Promise<Space>;
  getSpace(id: number): Promise<Space | null>;
  listSpaces(accountId: number): Promise<Space[]>;
  updateSpace(id: number, patch: SpacePatch): Promise<Space | null>;

  createDevice(device: NewDevice, now: number): Promise<DeviceRecord>;
  getDevice(deviceId: string): Promise<DeviceRecord | null>;
  getDeviceByPk(pk: number): Promise<DeviceRecord | null>;
  listDevices(filter?: { accountId?: number; spaceId?: number }): Promise<DeviceRecord[]>;
  /**
   * getDevice, getSpace and listDevices answering at once when the store needs no I/O for it (SQLite
   * always), else with a promise: a cached v2 GET then takes no promise at all (issue 19 step 7, as
   * accountForApiKeyNow). A store error may be thrown rather than rejected.
   */
  getDeviceNow(deviceId: string): AtOnce<DeviceRecord | null>;
  getSpaceNow(id: number): AtOnce<Space | null>;
  listDevicesNow(filter?: { accountId?: number; spaceId?: number }): AtOnce<DeviceRecord[]>;
  updateDevice(deviceId: string, patch: DevicePatch): Promise<DeviceRecord | null>;
  mqttSecretHash(deviceId: string): Promise<string | null>;
  /**
   * [SNAP-8] Sets each named device's MQTT secret hash where it differs (virtual meters' derived
   * passwords, at open and after a restore), in one transaction; returns the ids of those changed.
   */
  setMqttSecretHashes(hashes: readonly { deviceId: string; hash: string }[]): Promise<string[]>;

  /** Idempotent by (devicePk, ts): a sample delivered twice is stored once. Returns rows newly written. */
  insertSamples(rows: readonly SampleRow[]): Promise<number>;
  /** The sample with the greatest ts (at most `notAfter`, when given). */
  latestSample(devicePk: number, notAfter?: number): Promise<SampleRow | null>;
  countSamples(devicePk: number): Promise<number>;
  /** The ts of the device's oldest and newest stored samples; null when none is stored (HX-5). */
  sampleSpan(devicePk: number): Promise<SampleSpan | null>;
  /** Last value of `property` in each bucket with data, for samples with fromTs <= ts < toTs, ascending. */
  history(
    devicePk: number,
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): Promise<HistoryPoint[]>;

  /** Appends to the ledger. A recharge transaction id is unique across the store: a repeat for the same device returns the first entry with duplicate=true; for another device it throws StoreConflictError. */
  appendLedger(entry: Omit<LedgerEntry, 'seq'>): Promise<{ entry: LedgerEntry; duplicate: boolean }>;
  ledgerSince(devicePk: number, afterSeq: number): Promise<LedgerEntry[]>;
  /** Per device with ledger entries (or only `devicePk`): their sum and newest seq. */
  ledgerTotals(devicePk?: number): Promise<LedgerTotal[]>;
  /** [LEDGER-4] Writes an external meter's answer to a credit once; a second one returns the first, duplicate. */
  recordCreditReceipt(receipt: CreditReceipt): Promise<{ receipt: CreditReceipt; duplicate: boolean }>;
  /** [LEDGER-4] The receipts of one device, by ledger seq. */
  creditReceipts(devicePk: number): Promise<CreditReceipt[]>;
  /** [LEDGER-4] Recharges of external devices (or of one) without a receipt yet, by seq: pending credits. */
  pendingCredits(devicePk?: number): Promise<LedgerEntry[]>;

  saveMeterSnapshots(snapshots: readonly MeterSnapshot[]): Promise<void>;
  loadMeterSnapshots(): Promise<MeterSnapshot[]>;

  /** Upserts every report in one transaction. */
  saveDeviceReports(reports: readonly DeviceReport[]): Promise<void>;
  loadDeviceReports(): Promise<DeviceReport[]>;

  /** Upserts each device's register continuity in one transaction (the last row of a device wins). */
  saveRegisterContinuity(rows: readonly RegisterContinuityRow[]): Promise<void>;
  loadRegisterContinuity(): Promise<RegisterContinuityRow[]>;

  /** In one transaction; idempotent by seq (an event written twice is kept once). */
  appendEvents(events: readonly StoredEvent[]): Promise<void>;
  readEvents(query: StoredEventQuery): Promise<StoredEvent[]>;
  /** How many events are kept, and the greatest seq among them (0 when none). */
  eventStats(): Promise<{ count: number; maxSeq: number }>;
  /** Deletes the `n` oldest events (the caller bounds n per call); returns how many went. */
  deleteOldestEvents(n: number): Promise<number>;

  getSetting(key: string): Promise<string | null>;
  setSetting(key: string, value: string): Promise<void>;

  /** Who holds the world owner lease now, if anyone (whatever its heartbeat's age). */
  getWorldOwner(): Promise<WorldOwner | null>;
  /** Takes the world owner lease, atomically, unless a live holder has it (decided by ownerClaimDecision). */
  claimWorldOwner(claim: OwnerClaim): Promise<OwnerClaimResult>;
  /** Renews the heartbeat; false when `token` no longer holds the lease (it was taken over). */
  renewWorldOwner(token: string, now: number): Promise<boolean>;
  /** Records where the holder answers, once it listens. */
  describeWorldOwner(token: string, urls: { httpUrl: string; mqttUrl: string }): Promise<void>;
  /** Gives the lease up, if `token` still holds it. */
  releaseWorldOwner(token: string): Promise<void>;
}
