// The `telemetry` channel [MC-7]: samples, judged (MC-3.10, MC-7.5), joined into one series across
// register resets (MC-7.9), re-anchored when a run outvotes a wild first sample (MC-7.13), summed up
// once a second, and stored. An event, never retained (MC-2.7).

import type { SamplePayload } from '../../../firmware-protocol/mqtt/schemas.ts';
import { sampleRow } from '../../store/sample-row.ts';
import type { SampleRow } from '../../store/types.ts';
import { logTime } from '../log-time.ts';
import { judgeSamples } from '../plausibility.ts';
import { resolutionsOf, samplesAtResolution } from '../resolution.ts';
import { followTwin, reanchorLine } from '../series-anchor.ts';
import type { Twin } from '../types.ts';
import type { ChannelContext } from './context.ts';

export interface TelemetryOptions {
  /** Maps a device id to its storage key; undefined for a device the store does not know. */
  devicePk?: (deviceId: string) => number | undefined;
  /** Where telemetry goes; resolves once durable. Unset: a mirror only (issue 11 §4). */
  ingest?: (rows: SampleRow[]) => Promise<void>;
}

export class Telemetry {
  readonly #cx: ChannelContext;
  readonly #opts: TelemetryOptions;
  readonly #ingesting = new Set<Promise<void>>();

  constructor(cx: ChannelContext, opts: TelemetryOptions) {
    this.#cx = cx;
    this.#opts = opts;
  }

  /** Resolves when every telemetry message received so far is durable in storage. */
  async settled(): Promise<void> {
    while (this.#ingesting.size > 0) await Promise.allSettled([...this.#ingesting]);
  }

  /** One telemetry message of `twin`, its samples' `ts` on the world's clock already [MC-11.2]. */
  on(twin: Twin, msg: { samples: SamplePayload[] }): void {
    const cx = this.#cx;
    const now = cx.now(); // once per message, the same for every check of it (MC-3.10)
    // [MC-4.4] [MC-7.7] Each value at its meter's resolution, declared or the default (no float noise).
    const received = samplesAtResolution(msg.samples, resolutionsOf(twin.info));
    // [MC-7.9] [MC-7.10] Registers joined into one series; the common case needs none of it.
    const joined = cx.registers.judge(twin.deviceId, received, twin.latest, twin.info?.register_max_kwh, now);
    const verdict = joined ?? judgeSamples(received, twin.latest, now);
    for (const e of joined?.events ?? [])
      cx.bus.emit(e.type, e.data, { ...cx.ctx(twin.deviceId), vt: Math.min(e.ts, now) });
    if (verdict.refused.length > 0) {
      const held = twin.latest;
      // Times as IST dates, values at their resolution already (samplesAtResolution above).
      const was = held ? `${logTime(held.ts)} energy=${held.energy}` : 'none';
      cx.refusals.refuseGrouped(
        verdict.refused,
        twin.deviceId,
        (first, n) =>
          `${n} sample(s) of ${twin.deviceId}, first ${logTime(first.sample.ts)} energy=${first.sample.energy} ` +
          `(newest held: ${was}, clock: ${logTime(now)})`,
      );
    }
    // A sample refused for good counts as handled (World.settle waits for it); a future one does not.
    let handled = 0;
    let future = 0;
    for (const r of verdict.refused)
      if (r.reason !== 'tsInFuture') handled = Math.max(handled, r.sample.ts);
      else future = Math.max(future, r.sample.ts);
    let samples = verdict.accepted;
    let newest = verdict.newest;
    // [MC-7.13] A run of samples that outvoted an unchecked wild one becomes the series.
    const reanchor = followTwin(twin, samples.length, verdict.refused, () =>
      cx.registers.held(twin.deviceId),
    );
    if (reanchor) {
      cx.counters.reanchored.inc();
      cx.log?.('warn', reanchorLine(twin.deviceId, reanchor));
      samples = [...reanchor.run];
      newest = reanchor.run[reanchor.run.length - 1]!;
    }
    if (samples.length === 0) {
      if (handled > twin.lastSampleTs) twin.lastSampleTs = handled;
      if (future > twin.lastFutureTs) twin.lastFutureTs = future;
      return;
    }
    twin.latest = newest;
    if (newest) cx.summary.add(twin.deviceId, samples.length, newest);
    const last = samples[samples.length - 1]!;
    if (!this.#opts.ingest) {
      twin.lastSampleTs = Math.max(twin.lastSampleTs, last.ts, handled);
      twin.lastFutureTs = Math.max(twin.lastFutureTs, future);
      return;
    }
    this.#store(twin, samples, Math.max(last.ts, handled), future);
  }

  /** Stores `samples`, after the device's register continuity [MC-7.9]; then they count as handled. */
  #store(twin: Twin, samples: readonly SamplePayload[], handled: number, future: number): void {
    const cx = this.#cx;
    const pk = this.#opts.devicePk?.(twin.deviceId);
    if (pk === undefined) {
      cx.counters.unknownDevice.inc();
      cx.log?.('warn', `twins: telemetry from unknown device ${twin.deviceId} not stored`);
      return;
    }
    const rows: SampleRow[] = samples.map((s) => sampleRow(pk, s));
    const ingest = this.#opts.ingest!;
    const durable = cx.registers.durable(twin.deviceId); // the continuity first, then its samples
    // Leaves the in-flight set in its own handlers: no third promise per message for a `finally`.
    const done: Promise<void> = (durable ? durable.then(() => ingest(rows)) : ingest(rows)).then(
      () => {
        twin.lastSampleTs = Math.max(twin.lastSampleTs, handled);
        twin.lastFutureTs = Math.max(twin.lastFutureTs, future);
        this.#ingesting.delete(done);
      },
      (err: Error) => {
        cx.counters.ingestFailed.inc(rows.length);
        cx.log?.('error', `twins: storing ${rows.length} samples of ${twin.deviceId} failed: ${err.message}`);
        this.#ingesting.delete(done);
      },
    );
    this.#ingesting.add(done);
  }
}
