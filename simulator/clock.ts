// The one virtual clock of a meterstack process. Real time by default; `speed` runs it N× faster;
// `advance` jumps it forward and lets every listener (the fleet) live through the jump before it returns.
// Domain code never reads a clock: it is handed `now` by whoever owns one of these.

export type AdvanceListener = (from: number, to: number) => Promise<void> | void;

export interface ClockOptions {
  /** Source of wall time, ms since epoch. Injected so tests can drive it. */
  wall?: () => number;
  /** Virtual ms per wall ms; 0 freezes the clock (only `advance` moves it). */
  speed?: number;
  /** Virtual time at creation; defaults to wall time. */
  start?: number;
  /** [MC-11.2] The wall shift kept from before a restart; defaults to start − wall. */
  shift?: number;
}

export class VirtualClock {
  readonly #wall: () => number;
  #speed: number;
  #baseWall: number;
  #baseVirtual: number;
  /** Set by start, `advance` and `set`, never by the speed: see `wallShift`. */
  #shift: number;
  readonly #listeners = new Set<AdvanceListener>();
  #advancing: Promise<void> = Promise.resolve();
  #jumping = false;

  constructor(opts: ClockOptions = {}) {
    this.#wall = opts.wall ?? Date.now;
    const speed = opts.speed ?? 1;
    if (!Number.isFinite(speed) || speed < 0)
      throw new TypeError(`clock speed must be a number >= 0, got ${speed}`);
    this.#speed = speed;
    this.#baseWall = this.#wall();
    this.#baseVirtual = opts.start ?? this.#baseWall;
    this.#shift = opts.shift ?? this.#baseVirtual - this.#baseWall;
  }

  /** Virtual time, integer ms since epoch. Never goes backwards. */
  now(): number {
    return Math.floor(this.#baseVirtual + (this.#wall() - this.#baseWall) * this.#speed);
  }

  get speed(): number {
    return this.#speed;
  }

  /**
   * An `advance` has moved the time and its listeners are still living through the jump: what reads
   * `now()` meanwhile sees the jump's end although the meters have not all reached it yet.
   */
  get jumping(): boolean {
    return this.#jumping;
  }

  setSpeed(speed: number): void {
    if (!Number.isFinite(speed) || speed < 0)
      throw new TypeError(`clock speed must be a number >= 0, got ${speed}`);
    this.#rebase();
    this.#speed = speed;
  }

  /** Subscribe to jumps; returns the unsubscribe function. */
  onAdvance(listener: AdvanceListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Jumps the clock forward by `ms` and resolves once every listener has caught up.
   * Concurrent calls are serialized, so two advances of 1 h end 2 h later, in order.
   */
  advance(ms: number): Promise<{ from: number; to: number }> {
    if (!Number.isInteger(ms) || ms < 0)
      throw new TypeError(`advance takes a whole number of ms >= 0, got ${ms}`);
    const run = this.#advancing.then(async () => {
      this.#rebase();
      const from = this.#baseVirtual;
      this.#baseVirtual += ms;
      this.#shift += ms;
      const to = this.#baseVirtual;
      this.#jumping = true;
      try {
        for (const listener of this.#listeners) await listener(from, to);
      } finally {
        this.#jumping = false;
      }
      return { from, to };
    });
    this.#advancing = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * Puts the clock at `virtual` running at `speed`, back or forward, with no listener living through
   * it: only for a world snapshot restored (src/world/world-snapshots.ts), whose meters come back as
   * they were at `virtual`. Waits for an advance under way first.
   */
  async set(virtual: number, speed: number): Promise<void> {
    if (!Number.isFinite(virtual) || !Number.isFinite(speed) || speed < 0)
      throw new TypeError(`clock set takes a time and a speed >= 0, got ${virtual}, ${speed}`);
    await this.#advancing;
    this.#baseWall = this.#wall();
    this.#baseVirtual = Math.floor(virtual);
    this.#speed = speed;
    this.#shift = this.#baseVirtual - this.#baseWall;
  }

  /** Offset of virtual time from wall time, for persisting the clock across restarts. */
  offset(): number {
    return this.now() - this.#wall();
  }

  /**
   * [MC-11.2] How far the world was put from wall time by its start, jumps (`advance`) and `set`, but
   * not by its speed: what a wall-clock meter's times are shifted by. Constant between those, so a
   * live meter's samples keep their spacing (at speed 0 they would otherwise all land on one instant);
   * at speed 1 it equals `offset()`.
   */
  wallShift(): number {
    return this.#shift;
  }

  #rebase(): void {
    const wall = this.#wall();
    this.#baseVirtual = this.#baseVirtual + (wall - this.#baseWall) * this.#speed;
    this.#baseWall = wall;
  }
}
