// The world: accounts, spaces, devices and the virtual meters behind them, on one store, one clock
// and one MQTT broker URL. HTTP routes and the CLI call this; it owns no HTTP or CLI concerns.
// A thin facade: the state lives in the core (core.ts), each operation in its own file over it
// (provision.ts, recharge.ts, replace.ts, advance.ts, exclusive.ts, restore.ts, world-snapshots.ts,
// workers/hub.ts).

import type { VirtualClock } from '../../simulator/clock.ts';
import type { MeterState } from '../../simulator/meter/types.ts';
import type { Fleet } from '../../simulator/meter-fleet.ts';
import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import { MAX_FUTURE_SKEW_MS } from '../devices/plausibility.ts';
import type { TwinRegistry } from '../devices/twins.ts';
import type { EventBus } from '../events/bus.ts';
import type { Account, DeviceRecord, KeyExpiry, Space, Store } from '../store/types.ts';
import type { Accounts } from './accounts.ts';
import { advance, announceJump, setSpeed, wallClockOnline } from './advance.ts';
import type { BackfillProgress } from './backfill.ts';
import { adoptHosted, makeCore, type WorldCore, type WorldOptions } from './core.ts';
import { exclusive, held } from './exclusive.ts';
import type { ExternalCredits, ExternalRecharge } from './external-credits.ts';
import type { ExternalLedgerCheck } from './external-ledger-check.ts';
import type { LedgerCheck } from './ledger-check.ts';
import type { SnapshotBody } from './meter-snapshot.ts';
import { setOnline, settle } from './meters.ts';
import { provisionDevice } from './provision.ts';
import { recharge, rechargeExternal } from './recharge.ts';
import { type ReplaceInput, type ReplaceResult, replaceMeter, swapMeter } from './replace.ts';
import { reload, restoreMeters } from './restore.ts';
import { loadTwins } from './twin-reports.ts';
import { type Log, type NewDeviceInput, WorldError } from './types.ts';
import type { WorkerHub } from './workers/hub.ts';
import { WorldSnapshots } from './world-snapshots.ts';

export class World {
  readonly #core: WorldCore;
  readonly store: Store;
  readonly clock: VirtualClock;
  readonly twins: TwinRegistry;
  readonly fleet: Fleet;
  readonly mqttUrl: string;
  readonly bus: EventBus;
  readonly log: Log;
  /** The fleet workers' meters: known here, run elsewhere (src/world/workers). */
  readonly workers: WorkerHub;
  /** Money for external meters: ledger first, then over MQTT, pending until they answer [LEDGER-4]. */
  readonly external: ExternalCredits;
  /** Whole-world snapshots, restore and reset (world-snapshots.ts). */
  readonly snapshots: WorldSnapshots;

  private constructor(core: WorldCore) {
    this.#core = core;
    ({ store: this.store, clock: this.clock, twins: this.twins, fleet: this.fleet } = core);
    ({ mqttUrl: this.mqttUrl, bus: this.bus, log: this.log } = core);
    ({ workers: this.workers, external: this.external } = core);
    this.snapshots = new WorldSnapshots(core);
  }

  /** Connects the twins, brings back every virtual meter as it was, and starts the fleet. */
  static async open(opts: WorldOptions): Promise<World> {
    const core = makeCore(opts);
    // Before the fleet's own listener: API instances learn of a jump before any meter lives through it.
    opts.clock.onAdvance(() => announceJump(core));
    const world = new World(core);
    // What each meter last reported, back in its twin before the broker says anything newer [MC-5.4].
    core.twins.restore(await loadTwins(opts.store, opts.clock.now() + MAX_FUTURE_SKEW_MS));
    await core.external.start(); // before the twins: a pending credit goes out when its meter is back [LEDGER-5]
    await core.twins.start();
    await restoreMeters(core);
    await core.ledger.checkAtStart();
    core.fleet.start();
    core.saver.start();
    core.workers.start();
    return world;
  }

  async close(): Promise<void> {
    const core = this.#core;
    core.gate.closed = true;
    core.workers.close();
    core.external.stop();
    core.saver.stop();
    await core.fleet.stop();
    await settle(core, 5_000).catch(() => undefined);
    await core.saver.saveAll();
    await core.twins.stop();
    await core.writer.close();
  }

  /** What the ledger check found when the world opened [issue 8 item 2]. */
  get reconciliation(): { readonly checkedAtStart: number; readonly disagreementsAtStart: number } {
    return this.#core.ledger.reconciliation;
  }

  /** [SNAP-8] Virtual meter `deviceId`'s MQTT password: derived, never stored. */
  meterSecret(deviceId: string): string {
    return this.#core.secrets.secretOf(deviceId);
  }

  createAccount(name: string, apiKey?: string): Promise<{ account: Account; apiKey: string }> {
    return this.#core.accounts.createAccount(name, apiKey);
  }

  createApiKey(accountId: number, expiry: number | null | KeyExpiry, apiKey?: string): Promise<string> {
    return this.#core.accounts.createApiKey(accountId, expiry, apiKey);
  }

  createSpace(input: Parameters<Accounts['createSpace']>[0]): Promise<Space> {
    return this.#core.accounts.createSpace(input);
  }

  /** Provisions a device and starts its virtual meter on the broker with its own credentials (provision.ts). */
  provisionDevice(
    input: NewDeviceInput,
  ): Promise<{ device: DeviceRecord; secret: string; meter: VirtualMeter | null }> {
    return provisionDevice(this.#core, input);
  }

  /** Backfills under way, oldest first. */
  backfills(): BackfillProgress[] {
    return this.#core.backfills.list();
  }

  /** Really connects or disconnects a virtual meter, and waits until the service has seen it. */
  setOnline(deviceId: string, online: boolean): Promise<void> {
    return setOnline(this.#core, deviceId, online);
  }

  meter(deviceId: string): VirtualMeter | undefined {
    return this.#core.fleet.get(deviceId);
  }

  /** Credits a virtual meter, ledger first, exactly once per transaction id [LEDGER-1] (recharge.ts). */
  recharge(
    deviceId: string,
    amount: number,
    transactionId: string,
  ): Promise<{ balance: number; applied: boolean }> {
    return recharge(this.#core, deviceId, amount, transactionId);
  }

  /** Issue 12 §3: a new physical meter behind a virtual device (replace.ts). */
  replaceMeter(deviceId: string, input: ReplaceInput): Promise<ReplaceResult> {
    return replaceMeter(this.#core, deviceId, input);
  }

  /** [LEDGER-3] Every virtual meter (or one) against its ledger, as of this instant. */
  checkLedger(deviceId?: string): Promise<LedgerCheck[]> {
    return this.#core.ledger.check(deviceId);
  }

  /** [LEDGER-4] Credits an external meter (external-credits.ts): applied, pending or refused. */
  rechargeExternal(device: DeviceRecord, amount: number, transactionId: string): Promise<ExternalRecharge> {
    return rechargeExternal(this.#core, device, amount, transactionId);
  }

  /** [LEDGER-6] External meters (or one) against the credits the ledger gave them. */
  checkExternalLedger(deviceId?: string): Promise<ExternalLedgerCheck[]> {
    return this.#core.external.check(deviceId);
  }

  /** [MC-11.3] The external devices online now, on wall time: an advance cannot take them along. */
  wallClockOnline(): string[] {
    return wallClockOnline(this.#core);
  }

  /** Jumps the clock; durable before this resolves (advance.ts). */
  advance(ms: number): Promise<{ from: number; to: number }> {
    return advance(this.#core, ms);
  }

  /** Runs the clock `speed` times faster than wall time from now on (advance.ts). */
  setSpeed(speed: number): Promise<{ speed: number; was: number }> {
    return setSpeed(this.#core, speed);
  }

  /** [spec-decisions 111] Runs a whole-world operation alone (exclusive.ts). */
  exclusive<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return exclusive(this.#core, what, fn);
  }

  /** Stops every meter, lets `replace` change the store's rows, brings the world back (restore.ts). */
  reload(replace: () => Promise<{ clock: number; speed: number } | null>): Promise<void> {
    return reload(this.#core, replace);
  }

  /** Replaces one virtual meter's state with what `make` returns (replace.ts). Call in `exclusive`. */
  swapMeter(
    deviceId: string,
    make: (old: MeterState, pk: number) => Promise<{ state: MeterState; ledgerSeq: number }>,
  ): Promise<VirtualMeter> {
    return swapMeter(this.#core, deviceId, make);
  }

  /** Holds the fleet's ticks while `fn` runs, everything before it stored: a snapshot in one piece. */
  held<T>(fn: () => Promise<T>): Promise<T> {
    return held(this.#core, fn);
  }

  /** Waits until every sample the online virtual meters produced so far is stored. */
  settle(timeoutMs = 30_000): Promise<void> {
    return settle(this.#core, timeoutMs);
  }

  /**
   * [OWNER-3] Another process owns the store now: from here on nothing of this world (snapshots, clock)
   * is written over what the new owner keeps.
   */
  abandonStore(): void {
    this.#core.saver.abandon();
  }

  /** A meter changed discretely (command, load, button): persist it soon, batched with others. */
  markChanged(): void {
    this.#core.saver.markChanged();
  }

  /** Persists every virtual meter's state and the clock offset. Saves are serialized. */
  saveSnapshots(): Promise<void> {
    return this.#core.saver.saveAll();
  }

  /** A device whose meter runs in a fleet worker: known here, run there (core.ts). */
  adoptHosted(device: DeviceRecord, secret?: string): Promise<void> {
    return adoptHosted(this.#core, device, secret);
  }
}

export type { BackfillProgress, Log, NewDeviceInput, SnapshotBody, WorldOptions };
export { WorldError };
