// The Store's methods handed to a store's parts, written once for both stores (the file split of
// sqlite/ and postgres/: one small class per group of tables). SQLite's parts answer at once and
// PostgreSQL's with a promise; every method here is async either way. What differs between the stores
// (opening, closing, a snapshot's file) stays in sqlite-store.ts and pg-store.ts.

import { keyExpiry } from './rows.ts';
import type {
  Account,
  AtOnce,
  BucketMinutes,
  CreditReceipt,
  DevicePatch,
  DeviceRecord,
  DeviceReport,
  HistoryPoint,
  KeyExpiry,
  LedgerEntry,
  LedgerTotal,
  MeterSnapshot,
  NewDevice,
  OwnerClaim,
  OwnerClaimResult,
  RegisterContinuityRow,
  SampleProperty,
  SampleRow,
  SampleSpan,
  Space,
  SpacePatch,
  Store,
  StoredEvent,
  StoredEventQuery,
  WorldOwner,
  WorldSnapshotContents,
  WorldSnapshotInfo,
  WorldSnapshotMeta,
} from './types.ts';

type Maybe<T> = T | Promise<T>;
/** A part's method for the Store method M: the same arguments, its answer now or later. */
type Part<M extends keyof Store> = Store[M] extends (...args: infer A) => Promise<infer R>
  ? (...args: A) => Maybe<R>
  : never;
interface PerDevice<T> {
  save(rows: readonly T[]): Maybe<void>;
  load(): Maybe<T[]>;
}

/** The parts a store hands its methods to, as sqlite/ and postgres/ each implement them. */
export interface StoreParts {
  accounts: {
    create: Part<'createAccount'>;
    get: Part<'getAccount'>;
    addKey(accountId: number, key: string, expiry: KeyExpiry, now: number): Maybe<void>;
    accountForKey(key: string, now: number, wallNow: number): Maybe<Account | null>;
    /** The answer at once, or undefined when it needs I/O that does not answer at once. */
    accountForKeyNow(key: string, now: number, wallNow: number): Account | null | undefined;
    revokeKey: Part<'revokeApiKey'>;
  };
  spaces: {
    create: Part<'createSpace'>;
    get: Part<'getSpace'>;
    list: Part<'listSpaces'>;
    update: Part<'updateSpace'>;
  };
  devices: {
    create: Part<'createDevice'>;
    get: Part<'getDevice'>;
    getByPk: Part<'getDeviceByPk'>;
    list: Part<'listDevices'>;
    update: Part<'updateDevice'>;
    setMqttSecretHashes: Part<'setMqttSecretHashes'>;
    mqttSecretHash: Part<'mqttSecretHash'>;
  };
  samples: {
    insert: Part<'insertSamples'>;
    latest: Part<'latestSample'>;
    count: Part<'countSamples'>;
    span: Part<'sampleSpan'>;
  };
  history: { query: Part<'history'> };
  ledger: { append: Part<'appendLedger'>; since: Part<'ledgerSince'>; totals: Part<'ledgerTotals'> };
  receipts: {
    record: Part<'recordCreditReceipt'>;
    ofDevice: Part<'creditReceipts'>;
    pending: Part<'pendingCredits'>;
  };
  snapshots: PerDevice<MeterSnapshot>;
  reports: PerDevice<DeviceReport>;
  register: PerDevice<RegisterContinuityRow>;
  events: {
    append: Part<'appendEvents'>;
    read: Part<'readEvents'>;
    stats: Part<'eventStats'>;
    deleteOldest: Part<'deleteOldestEvents'>;
  };
  settings: { get: Part<'getSetting'>; set: Part<'setSetting'> };
  owner: {
    current(): Maybe<WorldOwner | null>;
    claim: Part<'claimWorldOwner'>;
    renew: Part<'renewWorldOwner'>;
    describe: Part<'describeWorldOwner'>;
  };
  world: {
    save: Part<'saveWorldSnapshot'>;
    list: Part<'listWorldSnapshots'>;
    get: Part<'getWorldSnapshot'>;
    restore: Part<'restoreWorldSnapshot'>;
    delete: Part<'deleteWorldSnapshot'>;
    read: Part<'readWorldSnapshot'>;
    reset: Part<'resetWorld'>;
    deleteDeviceReadings: Part<'deleteDeviceReadings'>;
  };
}

export abstract class StoreFacade implements Store {
  readonly #p: StoreParts;

  protected constructor(parts: StoreParts) {
    this.#p = parts;
  }

  abstract close(): Promise<void>;
  /** A no-op once closed (a shutdown path may release after closing). */
  abstract releaseWorldOwner(token: string): Promise<void>;
  abstract exportWorldSnapshot(name: string, file: string): Promise<boolean>;
  abstract importWorldSnapshot(name: string, file: string): Promise<WorldSnapshotInfo>;

  async createAccount(name: string, now: number): Promise<Account> {
    return this.#p.accounts.create(name, now);
  }
  async getAccount(id: number): Promise<Account | null> {
    return this.#p.accounts.get(id);
  }
  async addApiKey(
    accountId: number,
    key: string,
    expiresAt: number | null | KeyExpiry,
    now: number,
  ): Promise<void> {
    return this.#p.accounts.addKey(accountId, key, keyExpiry(expiresAt), now);
  }
  async accountForApiKey(key: string, now: number, wallNow = Date.now()): Promise<Account | null> {
    return this.#p.accounts.accountForKey(key, now, wallNow);
  }
  accountForApiKeyNow(key: string, now: number, wallNow: number): Account | null | undefined {
    return this.#p.accounts.accountForKeyNow(key, now, wallNow);
  }
  async revokeApiKey(key: string, now: number): Promise<boolean> {
    return this.#p.accounts.revokeKey(key, now);
  }

  async createSpace(space: Omit<Space, 'id'>): Promise<Space> {
    return this.#p.spaces.create(space);
  }
  async getSpace(id: number): Promise<Space | null> {
    return this.#p.spaces.get(id);
  }
  async listSpaces(accountId: number): Promise<Space[]> {
    return this.#p.spaces.list(accountId);
  }
  async updateSpace(id: number, patch: SpacePatch): Promise<Space | null> {
    return this.#p.spaces.update(id, patch);
  }

  async createDevice(device: NewDevice, now: number): Promise<DeviceRecord> {
    return this.#p.devices.create(device, now);
  }
  async getDevice(deviceId: string): Promise<DeviceRecord | null> {
    return this.#p.devices.get(deviceId);
  }
  getDeviceNow(deviceId: string): AtOnce<DeviceRecord | null> {
    return this.#p.devices.get(deviceId);
  }
  getSpaceNow(id: number): AtOnce<Space | null> {
    return this.#p.spaces.get(id);
  }
  listDevicesNow(filter?: { accountId?: number; spaceId?: number }): AtOnce<DeviceRecord[]> {
    return this.#p.devices.list(filter);
  }
  async getDeviceByPk(pk: number): Promise<DeviceRecord | null> {
    return this.#p.devices.getByPk(pk);
  }
  async listDevices(filter?: { accountId?: number; spaceId?: number }): Promise<DeviceRecord[]> {
    return this.#p.devices.list(filter);
  }
  async updateDevice(deviceId: string, patch: DevicePatch): Promise<DeviceRecord | null> {
    return this.#p.devices.update(deviceId, patch);
  }
  async setMqttSecretHashes(hashes: readonly { deviceId: string; hash: string }[]): Promise<string[]> {
    return this.#p.devices.setMqttSecretHashes(hashes);
  }
  async mqttSecretHash(deviceId: string): Promise<string | null> {
    return this.#p.devices.mqttSecretHash(deviceId);
  }

  async insertSamples(rows: readonly SampleRow[]): Promise<number> {
    return this.#p.samples.insert(rows);
  }
  async latestSample(devicePk: number, notAfter?: number): Promise<SampleRow | null> {
    return this.#p.samples.latest(devicePk, notAfter);
  }
  async countSamples(devicePk: number): Promise<number> {
    return this.#p.samples.count(devicePk);
  }
  async sampleSpan(devicePk: number): Promise<SampleSpan | null> {
    return this.#p.samples.span(devicePk);
  }
  async history(
    devicePk: number,
    property: SampleProperty,
    fromTs: number,
    toTs: number,
    bucket: BucketMinutes,
  ): Promise<HistoryPoint[]> {
    return this.#p.history.query(devicePk, property, fromTs, toTs, bucket);
  }

  async appendLedger(entry: Omit<LedgerEntry, 'seq'>): Promise<{ entry: LedgerEntry; duplicate: boolean }> {
    return this.#p.ledger.append(entry);
  }
  async ledgerSince(devicePk: number, afterSeq: number): Promise<LedgerEntry[]> {
    return this.#p.ledger.since(devicePk, afterSeq);
  }
  async ledgerTotals(devicePk?: number): Promise<LedgerTotal[]> {
    return this.#p.ledger.totals(devicePk);
  }
  async recordCreditReceipt(receipt: CreditReceipt): Promise<{ receipt: CreditReceipt; duplicate: boolean }> {
    return this.#p.receipts.record(receipt);
  }
  async creditReceipts(devicePk: number): Promise<CreditReceipt[]> {
    return this.#p.receipts.ofDevice(devicePk);
  }
  async pendingCredits(devicePk?: number): Promise<LedgerEntry[]> {
    return this.#p.receipts.pending(devicePk);
  }

  async saveMeterSnapshots(snapshots: readonly MeterSnapshot[]): Promise<void> {
    return this.#p.snapshots.save(snapshots);
  }
  async loadMeterSnapshots(): Promise<MeterSnapshot[]> {
    return this.#p.snapshots.load();
  }
  async saveDeviceReports(reports: readonly DeviceReport[]): Promise<void> {
    return this.#p.reports.save(reports);
  }
  async loadDeviceReports(): Promise<DeviceReport[]> {
    return this.#p.reports.load();
  }
  async saveRegisterContinuity(rows: readonly RegisterContinuityRow[]): Promise<void> {
    return this.#p.register.save(rows);
  }
  async loadRegisterContinuity(): Promise<RegisterContinuityRow[]> {
    return this.#p.register.load();
  }

  async appendEvents(events: readonly StoredEvent[]): Promise<void> {
    return this.#p.events.append(events);
  }
  async readEvents(query: StoredEventQuery): Promise<StoredEvent[]> {
    return this.#p.events.read(query);
  }
  async eventStats(): Promise<{ count: number; maxSeq: number }> {
    return this.#p.events.stats();
  }
  async deleteOldestEvents(n: number): Promise<number> {
    return this.#p.events.deleteOldest(n);
  }

  async getSetting(key: string): Promise<string | null> {
    return this.#p.settings.get(key);
  }
  async setSetting(key: string, value: string): Promise<void> {
    return this.#p.settings.set(key, value);
  }

  async getWorldOwner(): Promise<WorldOwner | null> {
    return this.#p.owner.current();
  }
  async claimWorldOwner(claim: OwnerClaim): Promise<OwnerClaimResult> {
    return this.#p.owner.claim(claim);
  }
  async renewWorldOwner(token: string, now: number): Promise<boolean> {
    return this.#p.owner.renew(token, now);
  }
  async describeWorldOwner(token: string, urls: { httpUrl: string; mqttUrl: string }): Promise<void> {
    return this.#p.owner.describe(token, urls);
  }

  async saveWorldSnapshot(name: string, meta: WorldSnapshotMeta): Promise<WorldSnapshotInfo> {
    return this.#p.world.save(name, meta);
  }
  async listWorldSnapshots(): Promise<WorldSnapshotInfo[]> {
    return this.#p.world.list();
  }
  async getWorldSnapshot(name: string): Promise<WorldSnapshotInfo | null> {
    return this.#p.world.get(name);
  }
  async restoreWorldSnapshot(name: string, keep: readonly string[]): Promise<WorldSnapshotInfo | null> {
    return this.#p.world.restore(name, keep);
  }
  async deleteWorldSnapshot(name: string): Promise<boolean> {
    return this.#p.world.delete(name);
  }
  async readWorldSnapshot(name: string): Promise<WorldSnapshotContents | null> {
    return this.#p.world.read(name);
  }
  async resetWorld(keep: readonly string[]): Promise<void> {
    return this.#p.world.reset(keep);
  }
  async deleteDeviceReadings(devicePk: number): Promise<void> {
    return this.#p.world.deleteDeviceReadings(devicePk);
  }
}
