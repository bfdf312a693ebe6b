// Durable events: money and meter state (DURABLE_TYPES) also go to the store, so they outlive the
// in-memory journal and a restart (issue 9 §3). Off the emit path, as the twins' report batch does:
// the subscriber only queues; a timer writes the queue in one transaction, one write at a time, then
// deletes the oldest beyond the bound in batches (spec-decisions 57). The read side is the journal's
// DurableSource: it flushes first, so what was emitted is what is read.

import type { EventBus } from '../../events/bus.ts';
import type { EventFilter } from '../../events/filter.ts';
import { type Counter, Metrics } from '../../events/metrics.ts';
import { DURABLE_TYPES, type MeterEvent } from '../../events/schemas.ts';
import type { DurableSource } from '../../events/views.ts';
import type { Log } from '../../log/types.ts';
import type { Store, StoredEvent } from '../../store/types.ts';

/** [EXT-4] Durable events' numbers in the service's metrics (were the public `written` and `lost`). */
export const DURABLE_METRICS = {
  written: 'meterstack_durable_events_written_total',
  lost: 'meterstack_durable_events_lost_total',
} as const;

export type DurableStore = Pick<Store, 'appendEvents' | 'readEvents' | 'eventStats' | 'deleteOldestEvents'>;

export interface DurableEventsOptions {
  store: DurableStore;
  /** Events kept in the store at most. Default 1,000,000. */
  keep?: number;
  /** Write at most this long after the first queued event. Default 100 ms. */
  delayMs?: number;
  /** Events queued at most while the store is slow or failing; the oldest beyond are lost, counted. Default 100,000. */
  maxQueue?: number;
  /** How far past `keep` the table may grow before the oldest are deleted. Default 10,000. */
  pruneSlack?: number;
  /** Rows deleted per transaction (~4 ms per 1,000 on a million rows here). Default 2,000. */
  pruneBatch?: number;
  log?: Log;
  /** Where written and lost events are counted (DURABLE_METRICS). Default: a registry of its own. */
  metrics?: Metrics;
}

export const DEFAULT_DURABLE_KEEP = 1_000_000;
/**
 * Events per write transaction: better-sqlite3 holds the event loop while it writes (~4 µs an event
 * with its JSON), so a burst is written in slices of a few ms with a turn of the loop between.
 */
const WRITE_BATCH = 2_000;

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class DurableEvents implements DurableSource {
  readonly keep: number;
  readonly #store: DurableStore;
  readonly #delayMs: number;
  readonly #maxQueue: number;
  readonly #pruneSlack: number;
  readonly #pruneBatch: number;
  readonly #log: Log;
  #queue: MeterEvent[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();
  #count: number;
  #stopped = false;
  /** Events lost because the queue was full (the store failing for long). */
  readonly #lost: Counter;
  readonly #written: Counter;

  /** The newest seq the store held when opened (0: none): seqs of a new run must start after it. */
  readonly maxSeqAtOpen: number;

  private constructor(opts: DurableEventsOptions, count: number, maxSeq: number) {
    this.keep = opts.keep ?? DEFAULT_DURABLE_KEEP;
    if (!Number.isInteger(this.keep) || this.keep < 1)
      throw new TypeError(`DurableEvents: keep must be a positive integer, not ${this.keep}`);
    this.#store = opts.store;
    this.#delayMs = opts.delayMs ?? 100;
    this.#maxQueue = opts.maxQueue ?? 100_000;
    this.#pruneSlack = opts.pruneSlack ?? 10_000;
    this.#pruneBatch = opts.pruneBatch ?? 2_000;
    this.#log = opts.log ?? (() => {});
    const metrics = opts.metrics ?? new Metrics();
    this.#written = metrics.counter(
      DURABLE_METRICS.written,
      'Durable events (money, meter state) written to the store',
    );
    this.#lost = metrics.counter(
      DURABLE_METRICS.lost,
      'Durable events lost: the queue was full while the store failed',
    );
    this.#count = count;
    this.maxSeqAtOpen = maxSeq;
  }

  static async open(opts: DurableEventsOptions): Promise<DurableEvents> {
    const { count, maxSeq } = await opts.store.eventStats();
    return new DurableEvents(opts, count, maxSeq);
  }

  /** Subscribes to `bus`; returns the unsubscribe function. */
  watch(bus: Pick<EventBus, 'subscribe'>): () => void {
    return bus.subscribe((e) => this.#onEvent(e));
  }

  #onEvent(e: MeterEvent): void {
    if (this.#stopped || !DURABLE_TYPES.has(e.type)) return;
    this.#queue.push(e);
    if (this.#queue.length > this.#maxQueue) {
      // The oldest tenth at once, so a flood against a failing store costs O(1) per event.
      const drop = this.#queue.length - Math.floor(this.#maxQueue * 0.9);
      this.#queue.splice(0, drop);
      this.#lost.inc(drop);
    }
    if (this.#timer === null) {
      this.#timer = setTimeout(() => void this.flush(), this.#delayMs);
      this.#timer.unref();
    }
  }

  /** Writes what is queued; resolves once it is committed (a failed write is logged and retried later). */
  flush(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#writing = this.#writing.then(() => this.#writeAll());
    return this.#writing;
  }

  async read(q: {
    afterSeq: number;
    upToSeq: number;
    filter: EventFilter;
    limit: number;
    newest?: boolean;
  }): Promise<MeterEvent[]> {
    await this.flush();
    const rows = await this.#store.readEvents({
      afterSeq: q.afterSeq,
      upToSeq: q.upToSeq,
      types:
        q.filter.types === undefined ? undefined : [...q.filter.types].filter((t) => DURABLE_TYPES.has(t)),
      deviceId: q.filter.deviceId,
      limit: q.limit,
      newest: q.newest,
    });
    return rows.map((r) => JSON.parse(r.body) as MeterEvent);
  }

  /** Writes the rest and stops taking events. */
  async close(): Promise<void> {
    await this.flush();
    this.#stopped = true;
  }

  /** Another process took the store (world owner lease): write nothing more. */
  abandon(): void {
    this.#stopped = true;
    this.#queue = [];
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** The whole queue, a transaction of at most WRITE_BATCH at a time with a turn of the loop between. */
  async #writeAll(): Promise<void> {
    while (this.#queue.length > 0 && !this.#stopped) {
      if (!(await this.#write())) return;
      if (this.#queue.length > 0) await yieldToLoop();
    }
  }

  /** One transaction; false when it failed (the events wait for the retry). */
  async #write(): Promise<boolean> {
    const batch = this.#queue.splice(0, WRITE_BATCH);
    const rows: StoredEvent[] = batch.map((e) => ({
      seq: e.seq,
      type: e.type,
      deviceId: e.device_id ?? null,
      vt: e.vt,
      body: JSON.stringify(e),
    }));
    try {
      await this.#store.appendEvents(rows);
    } catch (err) {
      // Back to the front of the queue for the next write; the bound above still holds.
      const back = [...batch, ...this.#queue];
      const over = Math.max(0, back.length - this.#maxQueue);
      this.#lost.inc(over);
      this.#queue = over > 0 ? back.slice(over) : back;
      this.#log('error', `events: writing ${rows.length} durable events: ${(err as Error).message}`);
      if (this.#timer === null) {
        this.#timer = setTimeout(() => void this.flush(), 1_000);
        this.#timer.unref();
      }
      return false;
    }
    this.#written.inc(rows.length);
    this.#count += rows.length;
    await this.#prune();
    return true;
  }

  /** Past `keep` by a batch: delete the oldest down to `keep`, a batch per transaction. */
  async #prune(): Promise<void> {
    if (this.#count < this.keep + this.#pruneSlack) return;
    try {
      while (this.#count > this.keep) {
        const gone = await this.#store.deleteOldestEvents(
          Math.min(this.#pruneBatch, this.#count - this.keep),
        );
        if (gone === 0) break;
        this.#count -= gone;
        await yieldToLoop();
      }
    } catch (err) {
      this.#log('error', `events: pruning old durable events: ${(err as Error).message}`);
    }
  }
}
