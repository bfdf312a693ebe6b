// Groups telemetry samples into large transactions. add() resolves only after its rows are committed, so
// a reading acknowledged to a meter is in the database. A batch is written when maxRows have queued or
// maxDelayMs after the first queued row, whichever comes first; one batch is in flight at a time.

import type { SampleRow, Store } from './types.ts';

export interface BatchWriterOptions {
  store: Pick<Store, 'insertSamples'>;
  /** Write as soon as this many rows are queued. Default 5000. */
  maxRows?: number;
  /** Write at most this long after the first row was queued. Default 50 ms. */
  maxDelayMs?: number;
  /**
   * Called once per add() whose rows could not be written, with the error its promise rejects with.
   * A failed batch of several add() calls is retried one add() at a time, so a bad row fails only its own.
   */
  onError: (error: Error, rowCount: number) => void;
  /** Told of each transaction written, with its rows and how long it took (the batch-write histogram). */
  onWritten?: (rows: number, seconds: number) => void;
}

interface Pending {
  rows: readonly SampleRow[];
  done: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class BatchWriter {
  readonly #store: BatchWriterOptions['store'];
  readonly #maxRows: number;
  readonly #maxDelayMs: number;
  readonly #onError: BatchWriterOptions['onError'];
  readonly #onWritten: BatchWriterOptions['onWritten'];
  #queue: Pending[] = [];
  #queuedRows = 0;
  #inFlight: Pending[] = [];
  #inFlightRows = 0;
  #timer: NodeJS.Timeout | null = null;
  #draining: Promise<void> | null = null;
  #closed = false;

  constructor(options: BatchWriterOptions) {
    const { store, maxRows = 5000, maxDelayMs = 50, onError, onWritten } = options ?? {};
    if (typeof store?.insertSamples !== 'function') throw new TypeError('BatchWriter: store is required');
    if (!Number.isInteger(maxRows) || maxRows < 1) {
      throw new TypeError(`BatchWriter: maxRows must be a positive integer, not ${maxRows}`);
    }
    if (!Number.isFinite(maxDelayMs) || maxDelayMs < 0) {
      throw new TypeError(`BatchWriter: maxDelayMs must be a number >= 0, not ${maxDelayMs}`);
    }
    if (typeof onError !== 'function') throw new TypeError('BatchWriter: onError is required');
    this.#store = store;
    this.#maxRows = maxRows;
    this.#maxDelayMs = maxDelayMs;
    this.#onError = onError;
    this.#onWritten = onWritten;
  }

  /** Rows accepted but not yet committed (queued plus in flight). Callers apply backpressure on this. */
  get pendingRows(): number {
    return this.#queuedRows + this.#inFlightRows;
  }

  /** Resolves when the rows are committed; rejects with the store's error if they could not be written. */
  add(rows: readonly SampleRow[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('BatchWriter is closed'));
    if (rows.length === 0) return Promise.resolve();
    let resolve!: () => void;
    let reject!: (error: Error) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // The error also goes to onError, so a caller that does not await add() does not crash the process
    // with an unhandled rejection; one that awaits still sees it.
    done.catch(() => {});
    this.#queue.push({ rows, done, resolve, reject });
    this.#queuedRows += rows.length;
    if (this.#queuedRows >= this.#maxRows) this.#kick();
    else if (this.#timer === null && this.#draining === null) {
      this.#timer = setTimeout(() => this.#kick(), this.#maxDelayMs);
    }
    return done;
  }

  /** Writes everything accepted so far; rejects with the first error of those batches. */
  async flush(): Promise<void> {
    const waiting = [...this.#inFlight, ...this.#queue].map((p) => p.done);
    this.#kick();
    const failed = (await Promise.allSettled(waiting)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Refuses new rows and flushes the rest. Does not close the store, which the writer does not own. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.flush();
  }

  #kick(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    // Only with rows to write: #drain() on an empty queue settles at once, and keeping that settled
    // promise in #draining would stop add() from ever arming its timer again.
    if (this.#draining === null && this.#queue.length > 0) this.#draining = this.#drain();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#takeBatch();
      this.#inFlight = batch;
      this.#inFlightRows = batch.reduce((n, p) => n + p.rows.length, 0);
      try {
        const error = await this.#insert(batch);
        if (error !== null && batch.length === 1) this.#fail(batch[0]!, error);
        else if (error !== null) {
          // One bad row must not fail the other callers' rows: write each add() of the batch alone.
          for (const p of batch) {
            const own = await this.#insert([p]);
            if (own !== null) this.#fail(p, own);
          }
        }
      } finally {
        this.#inFlight = [];
        this.#inFlightRows = 0;
      }
    }
    this.#draining = null;
  }

  /** Whole add() calls, up to maxRows (at least one call, however large). */
  #takeBatch(): Pending[] {
    let n = 0;
    let rows = 0;
    while (n < this.#queue.length && (n === 0 || rows + this.#queue[n]!.rows.length <= this.#maxRows)) {
      rows += this.#queue[n]!.rows.length;
      n++;
    }
    this.#queuedRows -= rows;
    return this.#queue.splice(0, n);
  }

  /** One transaction for the rows of `batch`; resolves their add() promises, or returns the error. */
  async #insert(batch: Pending[]): Promise<Error | null> {
    const rows = batch.length === 1 ? batch[0]!.rows : batch.flatMap((p) => p.rows);
    const started = performance.now();
    try {
      await this.#store.insertSamples(rows);
    } catch (thrown) {
      return thrown instanceof Error ? thrown : new Error(String(thrown));
    }
    this.#onWritten?.(rows.length, (performance.now() - started) / 1000);
    for (const p of batch) p.resolve();
    return null;
  }

  #fail(pending: Pending, error: Error): void {
    pending.reject(error);
    try {
      this.#onError(error, pending.rows.length);
    } catch (handlerError) {
      // A throwing handler is a bug: surface it as an uncaught exception, but keep writing the queue.
      queueMicrotask(() => {
        throw handlerError;
      });
    }
  }
}
