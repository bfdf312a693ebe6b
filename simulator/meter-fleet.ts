// The fleet: every virtual meter of the process, ticked from one virtual clock. A wall-clock timer
// moves them along in real (or sped-up) time; a clock jump makes each one live through the gap,
// integrating, billing and publishing every telemetry sample as if the time had really passed.

import type { VirtualClock } from './clock.ts';
import type { VirtualMeter } from './virtual-meter.ts';

export interface FleetOptions {
  clock: VirtualClock;
  /** Wall ms between ticks. Correctness does not depend on it: a tick emits every sample that fell due. */
  tickMs?: number;
}

export class Fleet {
  readonly #meters = new Map<string, VirtualMeter>();
  readonly #clock: VirtualClock;
  readonly #tickMs: number;
  #timer: NodeJS.Timeout | null = null;
  #unsubscribe: (() => void) | null = null;

  constructor(opts: FleetOptions) {
    this.#clock = opts.clock;
    this.#tickMs = opts.tickMs ?? 200;
  }

  get size(): number {
    return this.#meters.size;
  }

  get(deviceId: string): VirtualMeter | undefined {
    return this.#meters.get(deviceId);
  }

  meters(): IterableIterator<VirtualMeter> {
    return this.#meters.values();
  }

  async add(meter: VirtualMeter): Promise<void> {
    if (this.#meters.has(meter.id)) throw new Error(`meter ${meter.id} is already in the fleet`);
    this.#meters.set(meter.id, meter);
    meter.tick(this.#clock.now());
    await meter.start();
  }

  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#periodicTick(), this.#tickMs);
    this.#timer.unref();
    this.#unsubscribe = this.#clock.onAdvance((_from, to) => this.#liveThrough(to));
  }

  tick(): void {
    const now = this.#clock.now();
    for (const meter of this.#meters.values()) meter.tick(now);
  }

  /** Resolves once every connected meter's telemetry is acknowledged by the broker. */
  async drained(): Promise<void> {
    await Promise.all([...this.#meters.values()].map((m) => m.drained()));
  }

  /** Holds the ticks (the clock's jumps still reach the meters): a world snapshot taken in one piece. */
  pause(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Ticks again after `pause`, if the fleet was started. */
  resume(): void {
    if (this.#timer || !this.#unsubscribe) return;
    this.#timer = setInterval(() => this.#periodicTick(), this.#tickMs);
    this.#timer.unref();
  }

  /** Takes a meter out (the caller stops or retires it). */
  remove(deviceId: string): VirtualMeter | undefined {
    const meter = this.#meters.get(deviceId);
    this.#meters.delete(deviceId);
    return meter;
  }

  /** Takes every meter out (the caller stops or retires them). */
  removeAll(): VirtualMeter[] {
    const all = [...this.#meters.values()];
    this.#meters.clear();
    return all;
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.tick();
    await this.drained();
    await Promise.all([...this.#meters.values()].map((m) => m.stop()));
  }

  /**
   * Not while a jump is lived through (its announcement included, src/world/advance.ts): the clock
   * already reads the jump's end, so one periodic tick would live every meter not yet reached through
   * the whole jump in one synchronous loop (10,000 meters, six hours: the event loop held ~9 s, no HTTP
   * request answered) [spec-decisions 197]. #liveThrough brings every meter to the same end, one per
   * turn of the event loop, so leaving the jump to it changes no sample and no balance.
   */
  #periodicTick(): void {
    if (!this.#clock.jumping) this.tick();
  }

  async #liveThrough(to: number): Promise<void> {
    for (const meter of this.#meters.values()) {
      meter.tick(to);
      // Yield between meters so a long jump of a big fleet does not starve the event loop.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.drained();
  }
}
