// The world: accounts, spaces, devices and the virtual meters behind them, on one store, one clock
// and one MQTT broker URL. HTTP routes and the CLI call this; it owns no HTTP or CLI concerns.

import type { VirtualClock } from '../../simulator/clock.ts';
import { reportedBalance } from '../../simulator/meter/index.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import { Fleet } from '../../simulator/meter-fleet.ts';
import { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { ServiceBroker } from '../broker/service-broker.ts';
import { MAX_FUTURE_SKEW_MS } from '../devices/plausibility.ts';
import { TwinRegistry } from '../devices/twins.ts';
import { type EventBus, silentBus } from '../events/bus.ts';
import { BatchWriter } from '../store/batch-writer.ts';
import type { Account, DeviceRecord, KeyExpiry, MeterSnapshot, Space, Store } from '../store/types.ts';
import { Accounts } from './accounts.ts';
import { type BackfillProgress, Backfills } from './backfill.ts';
import {
  ANNOUNCE_WAIT_MS,
  FOLLOWERS_FRESH_MS,
  FOLLOWERS_SEEN_SETTING,
  WORLD_CLOCK_TOPIC,
} from './clock-anchor.ts';
import { ExternalCredits, type ExternalRecharge } from './external-credits.ts';
import type { ExternalLedgerCheck } from './external-ledger-check.ts';
import { CHARGED_BASELINE, type LedgerCheck } from './ledger-check.ts';
import { MeterLedger } from './meter-ledger.ts';
import { issueMeterSecrets, MeterSecrets } from './meter-secrets.ts';
import { restoreMeter, type SnapshotBody } from './meter-snapshot.ts';
import { newMeterPlan } from './new-meter.ts';
import { type ReplaceInput, type ReplaceResult, replaceVirtualMeter } from './replace.ts';
import { hashSecret, newToken } from './secrets.ts';
import { SnapshotSaver } from './snapshot-saver.ts';
import { loadTwins, saveRegister, saveReports } from './twin-reports.ts';
import { type Log, type MeterMeta, type NewDeviceInput, WorldError } from './types.ts';
import { WorkerHub } from './workers/hub.ts';
import { WorldSnapshots } from './world-snapshots.ts';

/** Meters a restore starts at once when it cannot take an old one on (bench/snapshots-world.ts). */
const RESTART_PARALLEL = 50;

export interface WorldOptions {
  store: Store;
  clock: VirtualClock;
  mqttUrl: string;
  service: { username: string; password: string };
  /**
   * Where a meter's MQTT login is made on brokers that keep logins themselves (Mosquitto's dynamic
   * security); default: nowhere (the embedded broker checks the store).
   */
  meterLogins?: Pick<ServiceBroker, 'addMeter' | 'removeMeter'>;
  /** [MC-2.3] The QoS the twins take telemetry at (ServiceBroker.telemetryQos); default 1. */
  telemetryQos?: 0 | 1;
  commandTimeoutMs?: number;
  snapshotIntervalMs?: number;
  fleetTickMs?: number;
  log?: Log;
  /** The event stream everything observable goes to (src/events); default: a silent one. */
  bus?: EventBus;
  /** Wall ms between sends of external meters' pending credits [LEDGER-5]. Default 10 s. */
  creditRetryMs?: number;
  /** [SNAP-8] Where virtual meters' MQTT passwords come from; default: a key of this process only. */
  meterSecrets?: MeterSecrets;
}

export class World {
  readonly store: Store;
  readonly clock: VirtualClock;
  readonly twins: TwinRegistry;
  readonly fleet: Fleet;
  readonly mqttUrl: string;
  readonly bus: EventBus;
  readonly #writer: BatchWriter;
  readonly #opts: WorldOptions;
  readonly #pks = new Map<string, number>();
  /** Each device's account, for the events' context. */
  readonly #accounts = new Map<string, number>();
  /** [MC-11.1] External devices: their meters live on wall time, mapped onto the world's clock. */
  readonly #external = new Set<string>();
  readonly #meta = new Map<string, MeterMeta>();
  readonly #secrets: MeterSecrets;
  readonly #snapshots: SnapshotSaver;
  readonly #ledger: MeterLedger;
  readonly #backfills = new Backfills();
  readonly #accountsDesk: Accounts;
  /** The fleet workers' meters: known here, run elsewhere (src/world/workers). */
  readonly workers: WorkerHub;
  /** Money for external meters: ledger first, then over MQTT, pending until they answer [LEDGER-4]. */
  readonly external: ExternalCredits;
  /** Whole-world snapshots, restore and reset (world-snapshots.ts). */
  readonly snapshots: WorldSnapshots = new WorldSnapshots(this);
  #closed = false;
  /** The whole-world operation under way (a snapshot, restore or reset), if any; and advances running. */
  #busy: string | null = null;
  #advances = 0;

  private constructor(opts: WorldOptions) {
    this.#opts = opts;
    this.store = opts.store;
    this.clock = opts.clock;
    this.mqttUrl = opts.mqttUrl;
    this.bus = opts.bus ?? silentBus();
    this.#accountsDesk = new Accounts({ store: opts.store, now: () => opts.clock.now() });
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
      telemetryQos: opts.telemetryQos,
      commandTimeoutMs: opts.commandTimeoutMs,
      now: () => opts.clock.now(),
      saveReports: (reports) => saveReports(opts.store, reports, (id) => this.#pks.get(id), opts.clock.now()),
      saveRegister: (id, reg) => saveRegister(opts.store, reg, this.#pks.get(id), opts.clock.now()),
      log: opts.log,
      bus: this.bus,
      accountOf: (id) => this.#accounts.get(id),
      clockOf: (id) => (this.#external.has(id) ? 'wall' : 'virtual'),
      wallOffset: () => opts.clock.wallShift(),
    });
    this.external = new ExternalCredits({
      store: opts.store,
      clock: opts.clock,
      twins: this.twins,
      bus: this.bus,
      log: this.log,
      retryMs: opts.creditRetryMs,
    });
    // Before the fleet's own listener: API instances learn of a jump before any meter lives through it.
    opts.clock.onAdvance(() => this.#announceJump());
    this.fleet = new Fleet({ clock: opts.clock, tickMs: opts.fleetTickMs });
    this.#snapshots = new SnapshotSaver({
      store: opts.store,
      clock: opts.clock,
      log: this.log,
      meters: () => [...this.#meta.keys()].flatMap((id) => this.#virtual(id) ?? []),
      meter: (id) => this.#virtual(id),
      intervalMs: opts.snapshotIntervalMs ?? 2000,
    });
    this.#ledger = new MeterLedger({
      store: opts.store,
      clock: opts.clock,
      fleet: this.fleet,
      meta: this.#meta,
      saveSnapshots: () => this.saveSnapshots(),
      reportedState: (id) => this.twins.get(id)?.state ?? null,
      log: this.log,
    });
    this.workers = new WorkerHub({ world: this, log: this.log });
    this.#secrets = opts.meterSecrets ?? MeterSecrets.ephemeral();
  }

  /** [SNAP-8] Virtual meter `deviceId`'s MQTT password: derived, never stored. */
  meterSecret(deviceId: string): string {
    return this.#secrets.secretOf(deviceId);
  }

  /**
   * [spec-decisions 90] A jump's new clock line goes to the store first; while API instances follow it
   * (one read it within FOLLOWERS_FRESH_MS, wall time: this is about processes, not the simulation),
   * the meters wait one poll of theirs, so no instance's twins take the jump's messages for the future.
   */
  async #announceJump(): Promise<void> {
    if (this.#closed) return;
    const anchor = await this.#snapshots.saveClock();
    // Instances take it in order with the meters' messages (clock-anchor.ts); the wait below covers a
    // broker that does not carry it.
    if (anchor) await this.twins.publish(WORLD_CLOCK_TOPIC, JSON.stringify(anchor)).catch(() => undefined);
    const seen = Number(await this.store.getSetting(FOLLOWERS_SEEN_SETTING));
    if (Number.isFinite(seen) && Date.now() - seen < FOLLOWERS_FRESH_MS)
      await new Promise((r) => setTimeout(r, ANNOUNCE_WAIT_MS));
  }

  /** A virtual meter and its meta, when both exist. */
  #virtual(deviceId: string): { meter: VirtualMeter; meta: MeterMeta } | undefined {
    const meter = this.fleet.get(deviceId);
    const meta = this.#meta.get(deviceId);
    return meter && meta ? { meter, meta } : undefined;
  }

  /** Connects the twins, brings back every virtual meter as it was, and starts the fleet. */
  static async open(opts: WorldOptions): Promise<World> {
    const world = new World(opts);
    // What each meter last reported, back in its twin before the broker says anything newer [MC-5.4].
    world.twins.restore(await loadTwins(opts.store, opts.clock.now() + MAX_FUTURE_SKEW_MS));
    await world.external.start(); // before the twins: a pending credit goes out when its meter is back [LEDGER-5]
    await world.twins.start();
    await world.#restore();
    await world.#ledger.checkAtStart();
    world.fleet.start();
    world.#snapshots.start();
    world.workers.start();
    return world;
  }

  /** What the ledger check found when the world opened [issue 8 item 2]. */
  get reconciliation(): { readonly checkedAtStart: number; readonly disagreementsAtStart: number } {
    return this.#ledger.reconciliation;
  }

  get log(): Log {
    return this.#opts.log ?? (() => {});
  }

  createAccount(name: string, apiKey?: string): Promise<{ account: Account; apiKey: string }> {
    return this.#accountsDesk.createAccount(name, apiKey);
  }

  createApiKey(accountId: number, expiry: number | null | KeyExpiry, apiKey?: string): Promise<string> {
    return this.#accountsDesk.createApiKey(accountId, expiry, apiKey);
  }

  createSpace(input: Parameters<Accounts['createSpace']>[0]): Promise<Space> {
    return this.#accountsDesk.createSpace(input);
  }

  /** Provisions a device and starts its virtual meter on the broker with its own credentials. */
  async provisionDevice(
    input: NewDeviceInput,
  ): Promise<{ device: DeviceRecord; secret: string; meter: VirtualMeter | null }> {
    this.#idle('a device cannot be provisioned');
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
    // [SNAP-8] A virtual meter's password is derived; an external device's is random, stored hashed.
    const secret = input.external ? newToken('mqs') : this.meterSecret(deviceId);
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
    this.#accounts.set(deviceId, device.accountId);
    await this.#opts.meterLogins?.addMeter(deviceId, secret);
    if (input.external) this.#external.add(deviceId);
    if (input.external) return { device, secret, meter: null };
    const plan = newMeterPlan(input, deviceId, now);
    const state = plan.live(
      plan.days > 0
        ? await this.#backfills.run(deviceId, {
            store: this.store,
            devicePk: device.pk,
            plan,
            to: now,
            stopReason: () =>
              this.#closed ? `backfill of ${deviceId} stopped: the service is stopping` : null,
          })
        : plan.initial,
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
    return this.#backfills.list();
  }

  /** Really connects or disconnects a virtual meter, and waits until the service has seen it. */
  async setOnline(deviceId: string, online: boolean): Promise<void> {
    const meter = this.fleet.get(deviceId);
    if (!meter) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    // Unplugged through /sim/v1: its goodbye says `bye`, but the reason a person wants is this one.
    if (!online) this.twins.expectOffline(deviceId, 'unplugged');
    await meter.setOnline(online);
    this.markChanged();
    await this.twins.waitForAvailability(deviceId, online);
    if (online) await this.#stored(meter, Date.now() + 5_000); // its connect sample [MC-6.7]
  }

  meter(deviceId: string): VirtualMeter | undefined {
    return this.fleet.get(deviceId);
  }

  /**
   * Credits a virtual meter, ledger first, exactly once per transaction id [LEDGER-1] (meter-ledger.ts).
   * Every outcome is a `money.recharge` event: applied, duplicate, or refused (with why).
   */
  async recharge(
    deviceId: string,
    amount: number,
    transactionId: string,
  ): Promise<{ balance: number; applied: boolean }> {
    const ctx = { deviceId, accountId: this.#accounts.get(deviceId) };
    const data = { transaction_id: transactionId, amount };
    try {
      this.#idle('a recharge cannot be applied');
      const { balance, applied, ledgerSeq } = await this.#ledger.recharge(deviceId, amount, transactionId);
      const outcome = applied ? 'applied' : 'duplicate';
      this.bus.emit('money.recharge', { outcome, ...data, ledger_seq: ledgerSeq, balance }, ctx);
      return { balance, applied };
    } catch (err) {
      const meter = this.fleet.get(deviceId);
      this.bus.emit(
        'money.recharge',
        {
          outcome: 'refused',
          ...data,
          ledger_seq: null,
          balance: meter ? reportedBalance(meter.state.balance) : null,
          reason: (err as Error).message,
        },
        ctx,
      );
      throw err;
    }
  }

  /** Issue 12 §3: a new physical meter behind a virtual device (replace.ts). */
  async replaceMeter(deviceId: string, input: ReplaceInput): Promise<ReplaceResult> {
    const v = this.#virtual(deviceId);
    if (!v) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    return replaceVirtualMeter(
      {
        store: this.store,
        clock: this.clock,
        twins: this.twins,
        ...v,
        saveSnapshots: () => this.saveSnapshots(),
        expectOffline: (id) => this.twins.expectOffline(id, 'unplugged'),
      },
      input,
    );
  }

  /** [LEDGER-3] Every virtual meter (or one) against its ledger, as of this instant. */
  checkLedger(deviceId?: string): Promise<LedgerCheck[]> {
    return this.#ledger.check(deviceId);
  }

  /** [LEDGER-4] Credits an external meter (external-credits.ts): applied, pending or refused. */
  async rechargeExternal(
    device: DeviceRecord,
    amount: number,
    transactionId: string,
  ): Promise<ExternalRecharge> {
    this.#idle('a recharge cannot be applied');
    return this.external.recharge(device, amount, transactionId);
  }

  /** [LEDGER-6] External meters (or one) against the credits the ledger gave them. */
  checkExternalLedger(deviceId?: string): Promise<ExternalLedgerCheck[]> {
    return this.external.check(deviceId);
  }

  /**
   * Jumps the clock; every meter lives through it, and its telemetry, the meters' states and the clock
   * are durable before this resolves (a crash right after must not put the clock back).
   */
  /** [MC-11.3] The external devices online now, on wall time: an advance cannot take them along. */
  wallClockOnline(): string[] {
    return [...this.#external]
      .filter((id) => this.twins.get(id)?.online === true && this.twins.clockOf(id) === 'wall')
      .sort();
  }

  async advance(ms: number): Promise<{ from: number; to: number }> {
    if (this.#busy) throw new WorldError('conflict', `the clock cannot advance while ${this.#busy} runs`);
    this.#advances++;
    try {
      const jump = await this.clock.advance(ms);
      // [MC-11.3] Meters on wall time cannot jump: not waited for, told once.
      const wall = this.wallClockOnline();
      if (wall.length > 0)
        this.log(
          'info',
          `clock: advanced ${ms / 1000} s; ${wall.length} external meter(s) on wall time did not live through it, their next data map onto the new time [MC-11.3]: ${wall.slice(0, 10).join(', ')}${wall.length > 10 ? ', …' : ''}`,
        );
      await this.settle();
      await this.saveSnapshots();
      this.bus.emit('clock.advanced', jump);
      return jump;
    } finally {
      this.#advances--;
    }
  }

  /** [spec-decisions 111] `what` waits for no whole-world operation: a conflict while one runs. */
  #idle(what: string): void {
    if (this.#busy)
      throw new WorldError('conflict', `${what} while ${this.#busy} runs; try again when it is done`);
  }

  /**
   * [spec-decisions 111] Runs a whole-world operation (`what`: "a snapshot", "a restore", ...) alone:
   * a conflict while another one or a clock advance runs, or while meters run in fleet workers.
   */
  async exclusive<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const busy = this.#busy ?? (this.#advances > 0 ? 'a clock advance' : null);
    if (busy)
      throw new WorldError('conflict', `${what} cannot start while ${busy} runs; try again when it is done`);
    const hosted = this.workers.hosted();
    if (hosted.length > 0) {
      const names = [...new Set(hosted.map((h) => h.worker))].join(', ');
      throw new WorldError(
        'conflict',
        `${what} is not supported while fleet workers host meters (${hosted.length} in ${names}): stop them first`,
      );
    }
    this.#busy = what;
    try {
      return await fn();
    } finally {
      this.#busy = null;
    }
  }

  /**
   * Stops every meter (retired: its retained messages cleared), lets `replace` change the store's rows,
   * then brings the world back from the store as `open` does, the clock at what `replace` returned. If
   * `replace` throws, the store is as it was and so is the world that comes back. Call in `exclusive`.
   */
  async reload(replace: () => Promise<{ clock: number; speed: number } | null>): Promise<void> {
    this.fleet.pause();
    await this.settle();
    await this.saveSnapshots();
    // Connected meters may be taken on by the restored world (#restore); the others are retired after.
    const old = new Map(
      this.fleet.removeAll().map((m) => [m.id, { meter: m, secret: this.#meta.get(m.id)?.secret }]),
    );
    await Promise.all([...old.values()].filter((o) => !o.meter.connected).map((o) => o.meter.retire()));
    for (const [id, o] of old) if (!o.meter.connected) old.delete(id);
    for (const map of [this.#meta, this.#pks, this.#accounts, this.#external]) map.clear();
    await this.saveSnapshots(); // after any save queued for the meters just gone
    await this.twins.settled();
    await this.#writer.flush();
    await this.twins.saveReports();
    await this.external.pause();
    try {
      const clock = await replace();
      if (clock) await this.clock.set(clock.clock, clock.speed);
    } finally {
      this.twins.replace(await loadTwins(this.store, this.clock.now() + MAX_FUTURE_SKEW_MS));
      await this.external.reload(); // its pending credits are the restored world's [LEDGER-5]
      await this.#restore(RESTART_PARALLEL, old);
      await Promise.all([...old.values()].map((o) => o.meter.retire()));
      await this.saveSnapshots();
      await Promise.all(
        [...this.fleet.meters()].map((m) => m.online && this.twins.waitForAvailability(m.id, true)),
      );
      this.fleet.resume();
    }
  }

  /**
   * Replaces one virtual meter: the old one retired (as in `reload`), then `make` (given its state and
   * pk, and run while no meter of that id exists) returns the new state and the ledger seq it includes;
   * the new one starts with the same login, online as the old was. Call in `exclusive`.
   */
  async swapMeter(
    deviceId: string,
    make: (old: MeterState, pk: number) => Promise<{ state: MeterState; ledgerSeq: number }>,
  ): Promise<VirtualMeter> {
    const old = this.fleet.get(deviceId);
    const meta = this.#meta.get(deviceId);
    if (!old || !meta) throw new WorldError('not_found', `virtual meter ${deviceId} not found`);
    old.tick(this.clock.now());
    await this.settle();
    this.fleet.remove(deviceId);
    this.#meta.delete(deviceId);
    await old.retire();
    await this.twins.settled();
    await this.#writer.flush();
    this.twins.forget(deviceId);
    const { state, ledgerSeq } = await make(old.state, meta.pk);
    const meter = await this.#startMeter(state, meta.secret, ledgerSeq, meta.pk, old.online);
    await this.saveSnapshots();
    if (meter.online) {
      await this.twins.waitForAvailability(deviceId, true);
      await this.#stored(meter, Date.now() + 5_000);
    }
    return meter;
  }

  /** Holds the fleet's ticks while `fn` runs, everything before it stored: a snapshot in one piece. */
  async held<T>(fn: () => Promise<T>): Promise<T> {
    this.fleet.pause();
    try {
      await this.settle();
      await this.saveSnapshots();
      return await fn();
    } finally {
      this.fleet.resume();
    }
  }

  /**
   * Runs the clock `speed` times faster than wall time from now on (0 freezes it); kept in the store
   * with the clock offset, so a restart runs at it (spec-decisions 54).
   */
  async setSpeed(speed: number): Promise<{ speed: number; was: number }> {
    const was = this.clock.speed;
    this.clock.setSpeed(speed);
    await this.saveSnapshots();
    this.bus.emit('clock.speed', { speed, was });
    return { speed, was };
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
    // A sample refused as stamped in the future (a meter clock ahead, issue 12) will never be stored.
    const handled = () => {
      const twin = this.twins.get(meter.id);
      return twin ? Math.max(twin.lastSampleTs, twin.lastFutureTs) : 0;
    };
    while (handled() < meter.lastSampleTs && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /**
   * [OWNER-3] Another process owns the store now: from here on nothing of this world (snapshots, clock)
   * is written over what the new owner keeps.
   */
  abandonStore(): void {
    this.#snapshots.abandon();
  }

  /** A meter changed discretely (command, load, button): persist it soon, batched with others. */
  markChanged(): void {
    this.#snapshots.markChanged();
  }

  /** Persists every virtual meter's state and the clock offset. Saves are serialized. */
  saveSnapshots(): Promise<void> {
    return this.#snapshots.saveAll();
  }

  /**
   * A device whose meter runs in a fleet worker: known here (twins, v2 API, ledger) but not run here;
   * with `secret`, its MQTT login is made on brokers that keep logins themselves.
   */
  async adoptHosted(device: DeviceRecord, secret?: string): Promise<void> {
    this.#pks.set(device.deviceId, device.pk);
    this.#accounts.set(device.deviceId, device.accountId);
    if (secret !== undefined) await this.#opts.meterLogins?.addMeter(device.deviceId, secret);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.workers.close();
    this.external.stop();
    this.#snapshots.stop();
    await this.fleet.stop();
    await this.settle(5_000).catch(() => undefined);
    await this.saveSnapshots();
    await this.twins.stop();
    await this.#writer.close();
  }

  /**
   * `parallel`: meters started at once (a restore's: 1 at open, where the order of the log matters).
   * `reuse`: connected meters of the world before (a restore): one that comes back online with the
   * same login takes its restored state on its connection (VirtualMeter.rebase) and leaves the map.
   */
  async #restore(
    parallel = 1,
    reuse: Map<string, { meter: VirtualMeter; secret?: string }> = new Map(),
  ): Promise<void> {
    const devices = await this.store.listDevices();
    for (const d of devices) {
      this.#pks.set(d.deviceId, d.pk);
      this.#accounts.set(d.deviceId, d.accountId);
      if (d.kind === 'external') this.#external.add(d.deviceId);
    }
    const snapshots = new Map((await this.store.loadMeterSnapshots()).map((s) => [s.devicePk, s]));
    const issued = await issueMeterSecrets(this.store, this.#secrets, devices, snapshots, this.log);
    await this.#ensureLogins(devices, snapshots, issued);
    const starting = new Set<Promise<unknown>>();
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
      // A fleet worker's meter runs there; it comes back when that worker registers (src/world/workers).
      const { host } = JSON.parse(snap.state) as SnapshotBody;
      const secret = this.meterSecret(device.deviceId);
      if (host) {
        this.workers.adoptStored(device, snap, host.worker, secret);
        continue;
      }
      const restored = await restoreMeter(this.store, device, snap);
      if (restored.chargedBaseline) this.log('info', `${device.deviceId}: ${CHARGED_BASELINE}`);
      const kept = reuse.get(device.deviceId);
      if (kept && restored.body.online && kept.secret === secret) {
        reuse.delete(device.deviceId);
        kept.meter.rebase(restored.state);
        this.#meta.set(device.deviceId, {
          secret: kept.secret,
          ledgerSeq: restored.ledgerSeq,
          pk: device.pk,
        });
        await this.fleet.add(kept.meter);
        continue;
      }
      const start = this.#startMeter(
        restored.state,
        secret,
        restored.ledgerSeq,
        device.pk,
        restored.body.online,
      );
      starting.add(start);
      void start.finally(() => starting.delete(start)).catch(() => undefined);
      if (starting.size >= parallel) await Promise.race(starting);
    }
    await Promise.all(starting);
  }

  /**
   * A broker that keeps logins itself (Mosquitto's dynamic security) may have lost or never had a
   * virtual meter's: each is made again from its derived password, all at once (the dynsec client
   * batches them); one whose password was just issued (`issued`) has it set, the others are left as
   * they are. External devices' secrets are stored only hashed, so theirs cannot be: they live on in
   * the broker's own file (docs/brokers.md).
   */
  async #ensureLogins(
    devices: DeviceRecord[],
    snapshots: Map<number, MeterSnapshot>,
    issued: Set<string>,
  ): Promise<void> {
    const logins = this.#opts.meterLogins;
    if (!logins) return;
    const made: Promise<void>[] = [];
    for (const d of devices)
      if (d.kind === 'virtual' && snapshots.has(d.pk))
        made.push(
          logins.addMeter(d.deviceId, this.meterSecret(d.deviceId), { restore: !issued.has(d.deviceId) }),
        );
    await Promise.all(made);
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
      persist: (m) => this.#snapshots.saveOne(m.id),
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

export type { BackfillProgress, Log, NewDeviceInput, SnapshotBody };
export { WorldError };
