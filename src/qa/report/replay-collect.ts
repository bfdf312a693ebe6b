// Collects a replay's report data while it plays (ReplayOptions.watch): the meter's state and telemetry
// as its firmware makes them, and the trace's own events, at trace time. A replay's meter cuts itself
// off (the pure meter decides, M-6), so cut-offs and restores are read from its relay and balance.

import { PROPERTY_CATALOGUE } from '../../../simulator/meter/index.ts';
import type { MeterModel } from '../../../simulator/meter/types.ts';
import type { TraceEvent } from '../traces/types.ts';
import type { Mark, RunData } from './model.ts';
import { RunRecorder } from './recorder.ts';

export class ReplayCollector {
  readonly #rec = new RunRecorder();
  readonly #model: MeterModel;
  readonly #relay = new Map<string, boolean>();
  readonly #seen = new Set<string>();
  readonly #wallStart = performance.now();

  constructor(model: MeterModel) {
    this.#model = model;
  }

  message(deviceId: string, channel: 'state' | 'telemetry', json: unknown): void {
    if (!this.#seen.has(deviceId)) {
      this.#seen.add(deviceId);
      // [MC-4.4] The resolutions its info declares, before its first value is rounded [RP-4].
      this.#rec.message(deviceId, 'info', { properties: PROPERTY_CATALOGUE[this.#model] });
    }
    if (channel === 'state' && typeof json === 'object' && json !== null)
      this.#state(deviceId, json as Record<string, unknown>);
    this.#rec.message(deviceId, channel, json);
  }

  traceEvent(deviceId: string, e: TraceEvent, ts: number): void {
    const at = { t: ts, meter: deviceId };
    const mark: Mark | null =
      e.type === 'recharge'
        ? { ...at, kind: 'recharge', text: `${e.amount} paise (in the trace)` }
        : e.type === 'offline' || e.type === 'online'
          ? { ...at, kind: e.type, text: 'in the trace' }
          : e.type === 'relay'
            ? { ...at, kind: 'relay', text: `relay ${e.on ? 'on' : 'off'} (in the trace)` }
            : e.type === 'mode'
              ? { ...at, kind: 'mode', text: `${e.mode} (in the trace)` }
              : null;
    if (mark) this.#rec.mark(mark);
  }

  result(run: Omit<RunData, 'meters' | 'marks' | 'checks' | 'thinned' | 'wallMs'>): RunData {
    return this.#rec.result({ ...run, wallMs: performance.now() - this.#wallStart });
  }

  /** A prepaid relay opening below zero is a cut-off; closing again after one, a restore. */
  #state(deviceId: string, s: Record<string, unknown>): void {
    const closed = s['relay_state'];
    const ts = s['ts'];
    if (typeof closed !== 'boolean' || typeof ts !== 'number') return;
    const was = this.#relay.get(deviceId);
    this.#relay.set(deviceId, closed);
    if (was === undefined || was === closed || s['mode'] !== 'prepaid') return;
    const balance = s['balance'];
    if (!closed && typeof balance === 'number' && balance < 0)
      this.#rec.mark({
        t: ts,
        meter: deviceId,
        kind: 'cutoff',
        text: `relay opened at a balance of ${balance} paise`,
      });
    else if (closed)
      this.#rec.mark({
        t: ts,
        meter: deviceId,
        kind: 'restore',
        text: `relay closed at a balance of ${balance} paise`,
      });
  }
}
