// What the twins refuse from meters, counted by reason and logged with a bound: a meter (or a forger)
// sending thousands of bad messages a second must not fill the log. The first few refusals of each
// interval are logged in full; the rest are summed up in one line per interval [MC-9.5].

import type { Log } from './types.ts';

/** Why a message (or one sample of it) was refused, and the contract rule it breaks. */
export const REFUSAL_RULES = {
  /** A reply on the reply topic of another device than the one its command went to. */
  forgedReply: 'MC-8.9',
  /** A reply nothing waits for: late, a repeat, or a guessed id. */
  unmatchedReply: 'MC-8.9',
  /** A sample or state stamped further ahead of the service's clock than MC-3.10 allows. */
  tsInFuture: 'MC-3.10',
  /** A sample or state stamped before the earliest plausible time (a meter whose clock was never set). */
  tsTooOld: 'MC-3.10',
  /** A state older than the newest one the service holds. */
  staleState: 'MC-5.1',
  /** A sample whose energy is below an earlier sample's, or above a later one's. */
  energyBackwards: 'MC-7.5',
  /** An info whose device_id is not the topic's. */
  infoDeviceMismatch: 'MC-1.4',
  /** Telemetry or a reply delivered with the retain flag. */
  retained: 'MC-2.7',
} as const;

export type RefusalReason = keyof typeof REFUSAL_RULES;

export interface RefusalLogOptions {
  log: Log;
  /** Refusals logged in full per interval; the rest are summed up. Default 5. */
  perInterval?: number;
  /** Default 10 s (wall time: it paces the log, not the meters). */
  intervalMs?: number;
}

export class RefusalLog {
  /** Every refusal since the start, by reason. */
  readonly counts: Record<RefusalReason, number> = Object.fromEntries(
    Object.keys(REFUSAL_RULES).map((k) => [k, 0]),
  ) as Record<RefusalReason, number>;
  readonly #opts: Required<RefusalLogOptions>;
  #logged = 0;
  readonly #suppressed = new Map<RefusalReason, number>();
  #timer: NodeJS.Timeout | null = null;

  constructor(opts: RefusalLogOptions) {
    this.#opts = { perInterval: 5, intervalMs: 10_000, ...opts };
  }

  /** Counts `n` refusals for `reason`; `detail` (built only when it will be logged) says what and whose. */
  refuse(reason: RefusalReason, detail: () => string, n = 1): void {
    this.counts[reason] += n;
    if (this.#timer === null) {
      this.#timer = setTimeout(() => this.#endInterval(), this.#opts.intervalMs);
      this.#timer.unref();
    }
    if (this.#logged < this.#opts.perInterval) {
      this.#logged++;
      this.#opts.log('warn', `twins: refused ${detail()} [${REFUSAL_RULES[reason]}]`);
      return;
    }
    this.#suppressed.set(reason, (this.#suppressed.get(reason) ?? 0) + n);
  }

  /** Counts each item under its reason; one log line per reason, about the first item of it. */
  refuseGrouped<T extends { reason: RefusalReason }>(
    items: readonly T[],
    detail: (first: T, n: number) => string,
  ): void {
    const byReason = new Map<RefusalReason, T[]>();
    for (const item of items) {
      const list = byReason.get(item.reason);
      if (list) list.push(item);
      else byReason.set(item.reason, [item]);
    }
    for (const [reason, list] of byReason)
      this.refuse(reason, () => detail(list[0]!, list.length), list.length);
  }

  /** Logs what is still unsummarised and stops the interval timer. */
  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#endInterval();
  }

  #endInterval(): void {
    this.#timer = null;
    this.#logged = 0;
    if (this.#suppressed.size === 0) return;
    const parts = [...this.#suppressed].map(([r, n]) => `${n} ${r} [${REFUSAL_RULES[r]}]`);
    const total = [...this.#suppressed.values()].reduce((a, b) => a + b, 0);
    this.#suppressed.clear();
    this.#opts.log(
      'warn',
      `twins: refused ${total} more not logged one by one in the last ${this.#opts.intervalMs / 1000} s: ${parts.join(', ')}`,
    );
  }
}
