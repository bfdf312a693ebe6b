// Saving the virtual meters' snapshots (meter-snapshot.ts) and the clock offset: every interval, soon
// after a discrete change (batched), or one meter at once. Saves run one after another, so a snapshot
// never overtakes a newer one; after `abandon` [OWNER-3] nothing is written any more.

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { VirtualClock } from '../../simulator/clock.ts';
import type { VirtualMeter } from '../../simulator/virtual-meter.ts';
import type { MeterSnapshot, Store } from '../store/types.ts';
import { CLOCK_ANCHOR_SETTING, type ClockAnchor } from './clock-anchor.ts';
import { snapshotOf } from './meter-snapshot.ts';
import type { Log, MeterMeta } from './types.ts';

export interface SnapshotSaverOptions {
  store: Pick<Store, 'saveMeterSnapshots' | 'setSetting'>;
  clock: VirtualClock;
  log: Log;
  /** The virtual meters to save, read when a save runs (not when it is queued). */
  meters(): Iterable<Entry>;
  /** One of them, read when its save runs. */
  meter(deviceId: string): Entry | undefined;
  /** Wall ms between periodic saves. */
  intervalMs: number;
  /** Wall ms of building between turns of the event loop; default BUILD_SLICE_MS (0: after every meter). */
  buildSliceMs?: number;
}

/** Wall ms a discrete change waits for others to be saved with it. */
const BATCH_MS = 20;
/**
 * Wall ms of snapshot building between turns of the event loop: 10,000 meters take 50-400 ms to
 * serialize, which held every HTTP request that long, every 2 s (spec-decisions 198).
 */
const BUILD_SLICE_MS = 10;

type Entry = { meter: VirtualMeter; meta: MeterMeta };

export class SnapshotSaver {
  readonly #opts: SnapshotSaverOptions;
  #saveSoon: NodeJS.Timeout | null = null;
  /** Meters changed since the batch was opened; `all`: someone asked for every meter. */
  #changed = new Set<string>();
  #changedAll = false;
  #timer: NodeJS.Timeout | null = null;
  #saving: Promise<void> = Promise.resolve();
  #abandoned = false;

  constructor(opts: SnapshotSaverOptions) {
    this.#opts = opts;
  }

  /** Starts the periodic saves. */
  start(): void {
    this.#timer = setInterval(() => void this.saveAll().catch(() => undefined), this.#opts.intervalMs);
    this.#timer.unref();
  }

  /** Stops the timers; saves already queued still run. */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#saveSoon) clearTimeout(this.#saveSoon);
  }

  /** [OWNER-3] From here on nothing is written over what another process keeps. */
  abandon(): void {
    this.#abandoned = true;
  }

  /**
   * A meter changed discretely (command, load, button): persist it soon, batched with others, and the
   * clock with it. Without a device id every meter is saved. Only the meters named are written: one
   * relay command in a fleet of 10,000 no longer rewrites 10,000 snapshots (decision 268); the others
   * keep to the periodic save.
   */
  markChanged(deviceId?: string): void {
    if (deviceId === undefined) this.#changedAll = true;
    else this.#changed.add(deviceId);
    if (this.#saveSoon) return;
    this.#saveSoon = setTimeout(() => {
      this.#saveSoon = null;
      const ids = this.#changedAll ? null : [...this.#changed];
      this.#changed.clear();
      this.#changedAll = false;
      void (ids === null ? this.saveAll() : this.saveSome(ids)).catch(() => undefined); // logged by #enqueue
    }, BATCH_MS);
  }

  /** Persists one meter now, in order with the batched saves. */
  saveOne(deviceId: string): Promise<void> {
    return this.#enqueue(async () => {
      const m = this.#opts.meter(deviceId);
      if (m) await this.#opts.store.saveMeterSnapshots([snapshotOf(m.meter, m.meta, this.#opts.clock.now())]);
    });
  }

  /** The meters named that still exist, and the clock. */
  saveSome(deviceIds: readonly string[]): Promise<void> {
    return this.#enqueue(() => this.#save(deviceIds.flatMap((id) => this.#opts.meter(id) ?? [])));
  }

  /** Persists every virtual meter's state and the clock (offset and speed). */
  saveAll(): Promise<void> {
    return this.#enqueue(() => this.#save([...this.#opts.meters()]));
  }

  /**
   * `entries`' snapshots in one transaction, then the clock. Built a slice at a time with the event loop
   * turning between slices (spec-decisions 198); a meter taken out or replaced meanwhile (a device reset,
   * a reload) is left out, checked in the same synchronous stretch as SQLite's write. Every row is still
   * one meter's state and its ledger seq read together (the money rule, meter-snapshot.ts), at most a
   * few ms older than the write, as rows were beside PostgreSQL's asynchronous write; the clock goes
   * last, so it is never behind a meter saved with it.
   */
  async #save(entries: readonly Entry[]): Promise<void> {
    const built: { entry: Entry; snapshot: MeterSnapshot }[] = [];
    const sliceMs = this.#opts.buildSliceMs ?? BUILD_SLICE_MS;
    let slice = performance.now();
    for (const entry of entries) {
      built.push({ entry, snapshot: snapshotOf(entry.meter, entry.meta, this.#opts.clock.now()) });
      if (performance.now() - slice >= sliceMs) {
        await nextTurn();
        slice = performance.now();
      }
    }
    if (this.#abandoned) return; // [OWNER-3] given up while building: another process keeps the world now
    const current = built.filter(({ entry: { meter, meta } }) => {
      const now = this.#opts.meter(meter.id);
      return now?.meter === meter && now.meta === meta;
    });
    if (current.length > 0) await this.#opts.store.saveMeterSnapshots(current.map((b) => b.snapshot));
    await this.#saveClock();
  }

  /** Persists the clock alone (a jump's new line, before the meters live through it: advance.ts). */
  async saveClock(): Promise<ClockAnchor | undefined> {
    let saved: ClockAnchor | undefined;
    await this.#enqueue(async () => {
      saved = await this.#saveClock();
    });
    return saved;
  }

  async #saveClock(): Promise<ClockAnchor> {
    const { clock, store } = this.#opts;
    await store.setSetting('clock.offset', String(clock.offset()));
    // [MC-11.2] The wall shift apart from the offset: at another speed than 1 they differ.
    await store.setSetting('clock.shift', String(clock.wallShift()));
    // The speed the clock runs at, kept with its offset: a restart without --speed runs at it (decision 54).
    await store.setSetting('clock.speed', String(clock.speed));
    // API instances follow the world's clock from this one row (src/api-instance/world-clock.ts): both
    // ends of the line and its slope, written at once so a reader never mixes two saves.
    const vt = clock.now();
    const anchor: ClockAnchor = { vt, wt: vt - clock.offset(), speed: clock.speed };
    await store.setSetting(CLOCK_ANCHOR_SETTING, JSON.stringify(anchor));
    return anchor;
  }

  /** Saves run one after another; a failed one is reported to its caller and logged, and later ones still run. */
  #enqueue(save: () => Promise<void>): Promise<void> {
    const run = this.#saving.then(() => (this.#abandoned ? undefined : save()));
    this.#saving = run.catch((err: Error) =>
      this.#opts.log('error', `saving meter snapshots: ${err.message}`),
    );
    return run;
  }
}
