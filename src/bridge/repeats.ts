// A line that would repeat, summed up: while the broker is down the bridge would say the same thing at
// every attempt. The first one is written; repeats are counted and written as one line, "… (repeated 12
// times in 60 s)", when something else is said, when the bridge flushes (it connected), or once a window
// passes while they go on (docs/spec-decisions.md 171).

import type { Logger } from '../serial/link.ts';

type Level = Parameters<Logger>[0];

export interface RepeatedLinesOptions {
  /** While repeats go on, a summary at most this often (default 60 s). */
  windowMs?: number;
  now?: () => number;
}

export class RepeatedLines {
  readonly #log: Logger;
  readonly #windowMs: number;
  readonly #now: () => number;
  #held: { key: string; level: Level; count: number; since: number } | null = null;

  constructor(log: Logger, opts: RepeatedLinesOptions = {}) {
    this.#log = log;
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#now = opts.now ?? Date.now;
  }

  /** Writes `text`, unless it is one more of `key`, the line just written: then it is counted. */
  note(level: Level, key: string, text: string): void {
    const now = this.#now();
    const held = this.#held;
    if (held?.key === key) {
      held.count++;
      if (now - held.since < this.#windowMs) return;
      this.#summary(now);
      this.#held = { key, level, count: 0, since: now };
      return;
    }
    this.flush();
    this.#log(level, text);
    this.#held = { key, level, count: 0, since: now };
  }

  /** Writes the sum of the repeats held back, if any; the next line is written whatever it says. */
  flush(): void {
    this.#summary(this.#now());
    this.#held = null;
  }

  #summary(now: number): void {
    const held = this.#held;
    if (!held || held.count === 0) return;
    const times = held.count === 1 ? 'once more' : `${held.count} times`;
    this.#log(held.level, `${held.key} (repeated ${times} in ${Math.round((now - held.since) / 1000)} s)`);
  }
}
