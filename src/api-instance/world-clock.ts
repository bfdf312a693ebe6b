// An API instance's clock: the world's, read from the store (spec-decisions 90). The world writes its
// clock as one line (world/clock-anchor.ts) with every snapshot save, before an advance or a speed
// change returns and every 2 s; this polls it every `pollMs` (lag bound: one poll plus one store read)
// and at once after a clock operation forwarded through this instance. It also says, once a second, that
// a follower is reading: the world then stores a jump's line and waits one poll before its meters live
// through the jump, so this instance's twins do not take the jump's messages for the future [MC-3.10].

import type { Store } from '../store/types.ts';
import {
  CLOCK_ANCHOR_SETTING,
  CLOCK_POLL_MS,
  type ClockAnchor,
  FOLLOWERS_SEEN_SETTING,
  parseClockAnchor,
  virtualAt,
} from '../world/clock-anchor.ts';
import type { ClockView } from '../world/face.ts';

export interface WorldClockOptions {
  store: Pick<Store, 'getSetting' | 'setSetting'>;
  /** Wall time, ms since epoch (the world's and the instance's hosts are assumed NTP-synced). */
  wall?: () => number;
  pollMs?: number;
  log?: (level: 'warn', msg: string) => void;
}

export class WorldClock implements ClockView {
  readonly #opts: WorldClockOptions;
  readonly #wall: () => number;
  #anchor: ClockAnchor;
  /** The last time handed out: the clock never goes backwards, whatever a new anchor says. */
  #last = 0;
  #timer: NodeJS.Timeout | null = null;
  #failing = false;
  #toldAt = Number.NEGATIVE_INFINITY;
  /** Whether the line is the world's (else wall time at speed 1: no world has run yet). */
  #fromWorld = false;

  private constructor(opts: WorldClockOptions, anchor: ClockAnchor) {
    this.#opts = opts;
    this.#wall = opts.wall ?? Date.now;
    this.#anchor = anchor;
  }

  /** Reads the world's clock once and keeps following it until `stop`. */
  static async open(opts: WorldClockOptions): Promise<WorldClock> {
    const wall = (opts.wall ?? Date.now)();
    // No anchor yet (no world has run on this store): wall time, as a fresh world's clock would start.
    const clock = new WorldClock(
      opts,
      (await WorldClock.#read(opts.store)) ?? { vt: wall, wt: wall, speed: 1 },
    );
    clock.#timer = setInterval(() => void clock.refresh(), opts.pollMs ?? CLOCK_POLL_MS);
    clock.#timer.unref();
    return clock;
  }

  static async #read(store: Pick<Store, 'getSetting'>): Promise<ClockAnchor | null> {
    return parseClockAnchor(await store.getSetting(CLOCK_ANCHOR_SETTING));
  }

  now(): number {
    this.#last = Math.max(this.#last, virtualAt(this.#anchor, this.#wall()));
    return this.#last;
  }

  get speed(): number {
    return this.#anchor.speed;
  }

  /**
   * Takes a line of the world's, read from the store or published by the world on a jump; an older one
   * than held (a store read that raced a jump's message) changes nothing.
   */
  apply(anchor: ClockAnchor | null): void {
    if (anchor === null || (this.#fromWorld && anchor.wt < this.#anchor.wt)) return;
    this.#anchor = anchor;
    this.#fromWorld = true;
  }

  /** Reads the world's clock now; a failed read keeps the old line and is told once. */
  async refresh(): Promise<void> {
    try {
      this.apply(await WorldClock.#read(this.#opts.store));
      // Once a second: tells the world a follower reads its clock, so it waits one poll before a jump.
      const wall = this.#wall();
      if (wall - this.#toldAt >= 1_000) {
        this.#toldAt = wall;
        await this.#opts.store.setSetting(FOLLOWERS_SEEN_SETTING, String(wall));
      }
      this.#failing = false;
    } catch (err) {
      if (!this.#failing)
        this.#opts.log?.('warn', `clock: reading the world's clock failed: ${(err as Error).message}`);
      this.#failing = true;
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }
}
