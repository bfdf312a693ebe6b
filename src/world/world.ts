// The world: accounts, spaces, devices and the virtual meters behind them, on one store, one clock
// and one MQTT broker URL. HTTP routes and the CLI call this; it owns no HTTP or CLI concerns.

import type { VirtualClock } from '../../simulator/clock.ts';
import { Fleet } from '../../simulator/fleet.ts';
import { reportedBalance } from '../../simulator/meter/index.ts';
import type { LoadProfile, MeterModel, MeterState, Mode, TariffSlot } from '../../simulator/meter/types.ts';
import { VirtualMeter } from '../../simulator/virtual-meter.ts';
import { MAX_FUTURE_SKEW_MS } from '../devices/plausibility.ts';
import { TwinRegistry } from '../devices/twins.ts';
import { BatchWriter } from '../store/batch-writer.ts';
import type { Account, DeviceRecord, Space, Store, Udfs } from '../store/types.ts';
import { type BackfillProgress, runBackfill } from './backfill.ts';
import { CHARGED_BASELINE, type LedgerCheck, ledgerCheck, reportChecks } from './ledger-check.ts';
import { restoreMeter, type SnapshotBody, snapshotOf } from './meter-snapshot.ts';
import { type NewMeterPlan, newMeterPlan } from './new-meter.ts';
import { hashSecret, newToken } from './secrets.ts';
import { loadTwins, saveReports } from './twin-reports.ts';

export type Log = (level: 'info' | 'warn' | 'error', msg: string) => void;

export interface WorldOptions {
  store: Store;
  clock: VirtualClock;
  mqttUrl: string;
  service: { username: string; password: string };
  commandTimeoutMs?: number;
  snapshotIntervalMs?: number;
  fleetTickMs?: number;
  log?: Log;
}

export interface NewDeviceInput extends Partial<Udfs> {
  accountId: number;
  spaceId: number | null;
  deviceId?: string;
  name?: string;
  description?: string;
  model?: MeterModel;
  mode?: Mode;
  balance?: number;
  ebTariff?: number;
  dgTariff?: number;
  activeTariff?: TariffSlot;
  load?: LoadProfile;
  telemetryPeriodS?: number;
  online?: boolean;
  /** Days of past readings to give the meter before it starts. */
  backfillDays?: number;
  /** Telemetry period of the backfilled history (default: the live period). */
  backfillPeriodS?: number;
  seed?: number;
  /**
   * An external meter (a real one, a bridged serial meter, or a virtual meter in another process):
   * the device and its MQTT credentials are created, but no meter runs here.
   */
  external?: boolean;
}

export class WorldError extends Error {
  constructor(
    readonly kind: 'not_found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}

export class World {
  readonly store: Store;
  readonly clock: VirtualClock;
  readonly twins: TwinRegistry;
  readonly fleet: Fleet;
  readonly mqttUrl: string;
  readonly #writer: BatchWriter;
  readonly #opts: WorldOptions;
  readonly #pks = new Map<string, number>();
  /** Per virtual meter: its MQTT secret and the highest ledger seq its state includes. */
  readonly #meta = new Map<string, { secret: string; ledgerSeq: number; pk: number }>();
  #saveSoon: NodeJS.Timeout | null = null;
  #snapshotTimer: NodeJS.Timeout | null = null;
  #saving: Promise<void> = Promise.resolve();
  /** Recharges append and credit one at a time, so a snapshot's ledger seq never skips an entry. */
  #crediting: Promise<unknown> = Promise.resolve();
  #abandoned = false;
  /** What the ledger check found when the world opened [issue 8 item 2]. */
  readonly reconciliation = { checkedAtStart: 0, disagreementsAtStart: 0 };
  readonly #backfills = new Map<string, BackfillProgress>();
  #closed = false;

  private constructor(opts: WorldOptions) {
    this.#opts = opts;
    this.store = opts.store;
    this.clock = opts.clock;
    this.mqttUrl = opts.mqttUrl;
    this.#writer = new BatchWriter({
      store: opts.store,
      onError: (e) => opts.log?.('error', `store: ${e.message}`),
    });
    this.twins = new TwinRegistry({
      mqttUrl: opts.mqttUrl,
      username: opts.service.username,
      password: opts.service.password,
      devicePk: (id) => this.#pks.get(id),
      ingest: (rows) => this.#writer.add(rows),
      commandTimeoutMs: opts.commandTimeoutMs,
      now: () => opts.clock.now(),
      saveReports: (reports) => saveReports(opts.store, reports, (id) => this.#pks.get(id), opts.clock.now()),
      log: opts.log,
    });
    this.fleet = new Fleet({ clock: opts.clock, tickMs: opts.fleetTickMs });
  }

  /** Connects the twins, brings back every virtual meter as it was, and starts the fleet. */
  static async open(opts: WorldOptions): Promise<World> {
    const world = new World(opts);
    // What each meter last reported, back in its twin before the broker says anything newer [MC-5.4].
    world.twins.restore(await loadTwins(opts.store, opts.clock.now() + MAX_FUTURE_SKEW_MS));
    await world.twins.start();
    await world.#restore();
    await world.#checkLedgerAtStart();
    world.fleet.start();
    world.#snapshotTimer = setInterval(
      () => void world.saveSnapshots().catch(() => undefined),
      opts.snapshotIntervalMs ?? 2000,
    );
    world.#snapshotTimer.unref();
    return world;
  }

  get log(): Log {
    return this.#opts.log ?? (() => {});
  }

  async createAccount(name: string, apiKey?: string): Promise<{ account: Account; apiKey: string }> {
    const now = this.clock.now();
    const account = await this.store.createAccount(name, now);
    const key = apiKey ?? newToken('msk');
    await this.store.addApiKey(account.id, key, null, now);
    return { account, apiKey: key };
  }

  async createApiKey(accountId: number, expiresAt: number | null, apiKey?: string): Promise<string> {
    if (!(await this.store.getAccount(accountId)))
      throw new WorldError('not_found', `account ${accountId} not found`);
    const key = apiKey ?? newToken('msk');
    await this.store.addApiKey(accountId, key, expiresAt, this.clock.now());
    return key;
  }

  async createSpace(
    input: { accountId: number; name: string; description?: string } & Partial<Udfs>,
  ): Promise<Space> {
    if (!(await this.store.getAccount(input.accountId)))
      throw new WorldError('not_found', `account ${input.accountId} not found`);
    return this.store.createSpace({
      accountId: input.accountId,
      name: input.name,
      description: input.description ?? '',
      udf1: input.udf1 ?? null,
      udf2: input.udf2 ?? null,
      udf3: input.udf3 ?? null,
      udf4: input.udf4 ?? null,
      udf5: input.udf5 ?? null,
    });
  }

  /** Provisions a device and starts its virtual meter on the broker with its own credentials. */
  async provisionDevice(
    input: NewDeviceInput,
  ): Promise<{ device: DeviceRecord; secret: string; meter: VirtualMeter | null }> {
    if (!(await this.store.getAccount(input.accountId)))
      throw new WorldError('not_found', `account ${input.accountId} not found`);
    if (input.spaceId !== null) {
      const space = await this.store.getSpace(input.spaceId);
      if (!space || space.accountId !== input.accountId) {
        throw new WorldError('not_found', `space ${input.spaceId} not found in account ${input.accountId}`);
      }
    }
    const deviceId = input.deviceId ?? (await this.#freshDeviceId());
    if (await this.store.getDevice(deviceId))
      throw new WorldError('conflict', `device ${deviceId} already exists`);
    const secret = newToken('mqs');
    const now = this.clock.now();
    const device = await this.store.createDevice(
      {
        deviceId,
        accountId: input.accountId,
        spaceId: input.spaceId,
        name: input.name ?? deviceId,
        description: input.description ?? '',
        model: input.model ?? 'basic',
        kind: input.external ? 'external' : 'virtual',
        mqttSecretHash: hashSecret(secret),
        udf1: input.udf1 ?? null,
        udf2: input.udf2 ?? null,
        udf3: input.udf3 ?? null,
        udf4: input.udf4 ?? null,
        udf5: input.udf5 ?? null,
      },
      now,
    );
    this.#pks.set(deviceId, device.pk);
    if (input.external) return { device, secret, meter: null };
    const plan = newMeterPlan(input, deviceId, now);
    const state = plan.live(
      plan.days > 0 ? await this.#backfill(deviceId, device.pk, plan, now) : plan.initial,
    );
    const opening = await this.store.appendLedger({
      devicePk: device.pk,
      kind: 'opening',
      amount: input.balance ?? 0,
      transactionId: null,
      createdAt: now,
    });
    const meter = await this.#startMeter(state, secret, opening.entry.seq, device.pk, input.online ?? true);
    await this.saveSnapshots();
    // Return only once the service sees the meter as the caller asked for it, so the next call can use it.
    if (meter.online) {
      await this.twins.waitForAvailability(deviceId, true);
      await this.#stored(meter, Date.now() + 5_000); // its connect sample [MC-6.7]: readings at once
    }
    return { device, secret, meter };
  }

  /** Backfills under way, oldest first. */
  backfills(): BackfillProgress[] {
    return [...this.#backfills.values()].map((b) => ({ ...b }));
  }

  /** Writes a new meter's history without stalling the service (backfill.ts); its state at `to`. */
  async #backfill(deviceId: string, pk: number, plan: NewMeterPlan, to: number): Promise<MeterState> {
    const progress: BackfillProgress = { deviceId, doneDays: 0, totalDays: plan.days, samples: 0 };
    this.#backfills.set(deviceId, progress);
    try {
      return await runBackfill({
        store: this.store,
        devicePk: pk,
        plan,
        to,
        progress,
        stopReason: () => (this.#closed ? `backfill of ${deviceId} stopped: the service is stopping` : null),
      });
    } finally {
      this.#backfills.delete(deviceId);
    }
  }

  /** Really connects or disconnects a virtual meter, and waits until the service has seen it. */
  async setOnline(deviceId: string, online: boolean): Promise<void> {
    const meter = this.fleet.get(deviceId);
    if (!meter) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    await meter.setOnline(online);
    this.markChanged();
    await this.twins.waitForAvailability(deviceId, online);
    if (online) await this.#stored(meter, Date.now() + 5_000); // its connect sample [MC-6.7]
  }

  meter(deviceId: string): VirtualMeter | undefined {
    return this.fleet.get(deviceId);
  }

  /**
   * Credits a virtual meter, exactly once per transaction id, durable before it returns. The ledger
   * decides [LEDGER-1]: the entry is written first, and a transaction id already in the ledger never
   * reaches the meter (same amount: the success of an applied recharge, applied: false; another amount:
   * a conflict), whatever the meter still remembers.
   */
  async recharge(
    deviceId: string,
    amount: number,
    transactionId: string,
  ): Promise<{ balance: number; applied: boolean }> {
    const meter = this.fleet.get(deviceId);
    const meta = this.#meta.get(deviceId);
    if (!meter || !meta) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    const credit = this.#crediting.then(async () => {
      let result: Awaited<ReturnType<Store['appendLedger']>>;
      try {
        result = await this.store.appendLedger({
          devicePk: meta.pk,
          kind: 'recharge',
          amount,
          transactionId,
          createdAt: this.clock.now(),
        });
      } catch (err) {
        throw new WorldError('conflict', (err as Error).message);
      }
      if (result.duplicate) {
        if (result.entry.amount !== amount) {
          throw new WorldError(
            'conflict',
            `transaction ${transactionId} was already used for ${result.entry.amount} paise`,
          );
        }
        meter.tick();
        return false;
      }
      meter.command(`recharge:${transactionId}`, {
        op: 'recharge',
        amount: result.entry.amount,
        transactionId,
      });
      meta.ledgerSeq = Math.max(meta.ledgerSeq, result.entry.seq);
      return true;
    });
    this.#crediting = credit.catch(() => undefined);
    const applied = await credit;
    if (applied) await this.saveSnapshots();
    return { balance: reportedBalance(meter.state.balance), applied };
  }

  /**
   * [LEDGER-3] Every virtual meter (or one) against its ledger: balance = ledger total − charged [M-15].
   * Meters are integrated to the present first, so the figures are of this instant.
   */
  async checkLedger(deviceId?: string): Promise<LedgerCheck[]> {
    const pk = deviceId === undefined ? undefined : this.#meta.get(deviceId)?.pk;
    if (deviceId !== undefined && pk === undefined)
      throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    const totals = new Map((await this.store.ledgerTotals(pk)).map((t) => [t.devicePk, t.total]));
    const checks: LedgerCheck[] = [];
    for (const [id, meta] of this.#meta) {
      if (pk !== undefined && meta.pk !== pk) continue;
      const meter = this.fleet.get(id);
      if (!meter) continue;
      meter.tick();
      checks.push(ledgerCheck(meter.state, totals.get(meta.pk) ?? 0));
    }
    return checks;
  }

  async #checkLedgerAtStart(): Promise<void> {
    const checks = await this.checkLedger();
    this.reconciliation.checkedAtStart = checks.length;
    this.reconciliation.disagreementsAtStart = reportChecks(checks, this.log);
  }

  /**
   * Jumps the clock; every meter lives through it, and its telemetry, the meters' states and the clock
   * are durable before this resolves (a crash right after must not put the clock back).
   */
  async advance(ms: number): Promise<{ from: number; to: number }> {
    const jump = await this.clock.advance(ms);
    await this.settle();
    await this.saveSnapshots();
    return jump;
  }

  /** Waits until every sample the online virtual meters produced so far is stored. */
  async settle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    await this.fleet.drained();
    for (const meter of this.fleet.meters()) await this.#stored(meter, deadline);
    await this.twins.settled();
    await this.#writer.flush();
  }

  /** Waits (until `deadline`, wall ms) until the service has stored every sample a connected meter published. */
  async #stored(meter: VirtualMeter, deadline: number): Promise<void> {
    if (!meter.connected) return;
    while ((this.twins.get(meter.id)?.lastSampleTs ?? 0) < meter.lastSampleTs && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** Persists one meter now, in order with the batched saves. */
  #saveOne(deviceId: string): Promise<void> {
    return this.#enqueueSave(async () => {
      const meter = this.fleet.get(deviceId);
      const meta = this.#meta.get(deviceId);
      if (meter && meta) await this.store.saveMeterSnapshots([snapshotOf(meter, meta, this.clock.now())]);
    });
  }

  /**
   * [OWNER-3] Another process owns the store now: from here on nothing of this world (snapshots, clock)
   * is written over what the new owner keeps.
   */
  abandonStore(): void {
    this.#abandoned = true;
  }

  /** Saves run one after another; a failed one is reported to its caller and logged, and later ones still run. */
  #enqueueSave(save: () => Promise<void>): Promise<void> {
    const run = this.#saving.then(() => (this.#abandoned ? undefined : save()));
    this.#saving = run.catch((err: Error) => this.log('error', `saving meter snapshots: ${err.message}`));
    return run;
  }

  /** A meter changed discretely (command, load, button): persist it soon, batched with others. */
  markChanged(): void {
    if (this.#saveSoon) return;
    this.#saveSoon = setTimeout(() => {
      this.#saveSoon = null;
      void this.saveSnapshots().catch(() => undefined); // logged by #enqueueSave
    }, 20);
  }

  /** Persists every virtual meter's state and the clock offset. Saves are serialized. */
  saveSnapshots(): Promise<void> {
    return this.#enqueueSave(async () => {
      const now = this.clock.now();
      const snapshots = [];
      for (const id of this.#meta.keys()) {
        const meter = this.fleet.get(id);
        const meta = this.#meta.get(id);
        if (meter && meta) snapshots.push(snapshotOf(meter, meta, now));
      }
      if (snapshots.length > 0) await this.store.saveMeterSnapshots(snapshots);
      await this.store.setSetting('clock.offset', String(this.clock.offset()));
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#snapshotTimer) clearInterval(this.#snapshotTimer);
    if (this.#saveSoon) clearTimeout(this.#saveSoon);
    await this.fleet.stop();
    await this.settle(5_000).catch(() => undefined);
    await this.saveSnapshots();
    await this.twins.stop();
    await this.#writer.close();
  }

  async #restore(): Promise<void> {
    const devices = await this.store.listDevices();
    for (const d of devices) this.#pks.set(d.deviceId, d.pk);
    const snapshots = new Map((await this.store.loadMeterSnapshots()).map((s) => [s.devicePk, s]));
    for (const device of devices) {
      if (device.kind !== 'virtual') continue;
      const snap = snapshots.get(device.pk);
      if (!snap) {
        this.log(
          'warn',
          `virtual meter ${device.deviceId} has no snapshot; it was never fully provisioned, skipping`,
        );
        continue;
      }
      const restored = await restoreMeter(this.store, device, snap);
      if (restored.chargedBaseline) this.log('info', `${device.deviceId}: ${CHARGED_BASELINE}`);
      await this.#startMeter(
        restored.state,
        restored.body.secret,
        restored.ledgerSeq,
        device.pk,
        restored.body.online,
      );
    }
  }

  async #startMeter(
    state: MeterState,
    secret: string,
    ledgerSeq: number,
    pk: number,
    online: boolean,
  ): Promise<VirtualMeter> {
    const meter = new VirtualMeter({
      state,
      now: () => this.clock.now(),
      mqttUrl: this.mqttUrl,
      password: secret,
      online,
      log: this.#opts.log,
      onChanged: () => this.markChanged(),
      persist: (m) => this.#saveOne(m.id),
    });
    this.#meta.set(state.deviceId, { secret, ledgerSeq, pk });
    await this.fleet.add(meter);
    return meter;
  }

  async #freshDeviceId(): Promise<string> {
    for (;;) {
      const id = `MTR${Math.floor(Math.random() * 1e8)
        .toString()
        .padStart(8, '0')}`;
      if (!(await this.store.getDevice(id))) return id;
    }
  }
}

export type { BackfillProgress, SnapshotBody };
