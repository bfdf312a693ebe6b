// Meters' reported info and state, saved in batches off the message path [MC-5.4]: a state message
// (one per command) marks its device; a timer saves every marked device together, so the command
// round trip never waits for the disk. A crash loses at most the last `delayMs` of reports, which
// the meter publishes again on its next connection (MC-6.3).

import type { Log, TwinReport } from './types.ts';

export interface ReportBatchOptions {
  save: (reports: TwinReport[]) => Promise<void>;
  /** The report of a device as it is now, when the batch is written. */
  reportOf: (deviceId: string) => TwinReport | undefined;
  /** Default 250 ms. */
  delayMs?: number;
  log?: Log;
}

export class ReportBatch {
  readonly #opts: ReportBatchOptions;
  readonly #marked = new Set<string>();
  #timer: NodeJS.Timeout | null = null;
  #saving: Promise<void> = Promise.resolve();

  constructor(opts: ReportBatchOptions) {
    this.#opts = opts;
  }

  mark(deviceId: string): void {
    this.#marked.add(deviceId);
    if (this.#timer) return;
    this.#timer = setTimeout(() => void this.flush(), this.#opts.delayMs ?? 250);
    this.#timer.unref();
  }

  /** Saves every marked device now; resolves once durable (a failed save is logged, not thrown). */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#marked.size === 0) return this.#saving;
    const reports: TwinReport[] = [];
    for (const deviceId of this.#marked) {
      const report = this.#opts.reportOf(deviceId);
      if (report) reports.push(report);
    }
    this.#marked.clear();
    this.#saving = this.#saving
      .then(() => this.#opts.save(reports))
      .catch((err: Error) => this.#opts.log?.('error', `twins: saving reported states: ${err.message}`));
    return this.#saving;
  }
}
