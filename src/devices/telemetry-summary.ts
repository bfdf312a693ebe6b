// Telemetry, summarised (issue 9 §1): never one event per sample. Accepted telemetry only updates a
// map of each meter's newest sample and two counters; once a second (wall time) one
// `telemetry.summary` event lists the meters that reported since the last one, and none is emitted
// when nothing came. The hot path is one Map.set and two additions per message.

import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { EventBus } from '../events/bus.ts';

export interface TelemetrySummaryOptions {
  bus: EventBus;
  /** Default 1000 ms. */
  intervalMs?: number;
  /** Wall clock of `interval_ms`; default Date.now. */
  wall?: () => number;
}

export class TelemetrySummary {
  readonly #bus: EventBus;
  readonly #intervalMs: number;
  readonly #wall: () => number;
  #newest = new Map<string, SamplePayload>();
  #messages = 0;
  #samples = 0;
  #since: number;
  #timer: NodeJS.Timeout | null = null;

  constructor(opts: TelemetrySummaryOptions) {
    this.#bus = opts.bus;
    this.#intervalMs = opts.intervalMs ?? 1000;
    this.#wall = opts.wall ?? Date.now;
    this.#since = this.#wall();
  }

  /** Starts the per-interval emission; it never keeps the process alive. */
  start(): void {
    if (this.#timer !== null || !this.#bus.enabled) return;
    this.#since = this.#wall();
    this.#timer = setInterval(() => this.emit(), this.#intervalMs);
    this.#timer.unref();
  }

  /** One accepted telemetry message of `samples` samples; `newest` is the meter's newest sample now. */
  add(deviceId: string, samples: number, newest: SamplePayload): void {
    if (this.#timer === null) return; // not started, or the bus is off: nobody would see it
    this.#newest.set(deviceId, newest);
    this.#messages++;
    this.#samples += samples;
  }

  /** Emits what came since the last emission, if anything did. */
  emit(): void {
    const now = this.#wall();
    const interval = Math.max(0, now - this.#since);
    this.#since = now;
    if (this.#newest.size === 0) return;
    const newest = this.#newest;
    const messages = this.#messages;
    const samples = this.#samples;
    this.#newest = new Map();
    this.#messages = 0;
    this.#samples = 0;
    const meters = [];
    for (const [deviceId, s] of newest) {
      meters.push({
        device_id: deviceId,
        ts: s.ts,
        active_power: s.active_power,
        energy: s.energy,
        voltage: s.voltage,
        balance: s.balance,
      });
    }
    this.#bus.emit('telemetry.summary', { interval_ms: interval, messages, samples, meters });
  }

  /** Emits what is left and stops the timer. */
  stop(): void {
    if (this.#timer === null) return;
    clearInterval(this.#timer);
    this.#timer = null;
    this.emit();
  }
}
