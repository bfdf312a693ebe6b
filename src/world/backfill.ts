// Writing a new meter's backfilled history without stalling the service (issue 8 item 8, spec
// decision 52): slice by slice (new-meter.ts), each written in its own transaction, with a turn of
// the event loop after each, so requests keep being served and memory holds one slice at a time.

import type { MeterState } from '../../simulator/meter/types.ts';
import { sampleRow } from '../store/sample-row.ts';
import type { Store } from '../store/types.ts';
import { DAY_MS } from '../time/ist.ts';
import { backfillSlices, type NewMeterPlan } from './new-meter.ts';

/** A backfill under way: what `GET /sim/v1/backfills` shows. */
export interface BackfillProgress {
  deviceId: string;
  /** Whole days of history written so far. */
  doneDays: number;
  totalDays: number;
  samples: number;
}

export interface BackfillRun {
  store: Pick<Store, 'insertSamples'>;
  devicePk: number;
  plan: NewMeterPlan;
  /** Backfill up to here (the time the meter was provisioned). */
  to: number;
  /** Updated after every slice. */
  progress: BackfillProgress;
  /** Checked after every slice; a reason stops the backfill with that error. */
  stopReason(): string | null;
}

/** Resolves with the meter's state at `to`, once every sample is written. */
export async function runBackfill(run: BackfillRun): Promise<MeterState> {
  const from = run.plan.initial.lastTs;
  let state = run.plan.initial;
  for (const slice of backfillSlices(run.plan.initial, run.to)) {
    if (slice.samples.length > 0) {
      await run.store.insertSamples(slice.samples.map((s) => sampleRow(run.devicePk, s)));
    }
    state = slice.state;
    run.progress.samples += slice.samples.length;
    run.progress.doneDays = Math.floor((state.lastTs - from) / DAY_MS);
    // The store writes synchronously: only a macrotask lets pending I/O (other requests) run.
    await new Promise((resolve) => setImmediate(resolve));
    const reason = run.stopReason();
    if (reason !== null) throw new Error(reason);
  }
  return state;
}

/** The backfills under way, for `GET /sim/v1/backfills`. */
export class Backfills {
  readonly #running = new Map<string, BackfillProgress>();

  /** Backfills under way, oldest first (copies). */
  list(): BackfillProgress[] {
    return [...this.#running.values()].map((b) => ({ ...b }));
  }

  /** Runs one backfill (`runBackfill`), listed while it runs; the meter's state at `run.to`. */
  async run(deviceId: string, run: Omit<BackfillRun, 'progress'>): Promise<MeterState> {
    const progress: BackfillProgress = { deviceId, doneDays: 0, totalDays: run.plan.days, samples: 0 };
    this.#running.set(deviceId, progress);
    try {
      return await runBackfill({ ...run, progress });
    } finally {
      this.#running.delete(deviceId);
    }
  }
}
