// What the twins refuse from meters, counted by reason and logged with a bound: a meter (or a forger)
// sending thousands of bad messages a second must not fill the log. The first few refusals of each
// interval are logged in full, each with its reason and rule; the rest are summed up in one line per
// interval [MC-9.5].

import { BoundedLog, type Tally } from '../log/bounded.ts';
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
  /**
   * A sample whose energy differs from the newest sample's by more than any meter could register, or
   * whose register value is at or above the register_max_kwh its meter declared (MC-7.12).
   */
  energyImplausible: 'MC-7.8',
  /** A sample whose register epoch is below the one held, or a new epoch stamped before the newest sample. */
  registerEpoch: 'MC-7.9',
  /** An info whose device_id is not the topic's. */
  infoDeviceMismatch: 'MC-1.4',
  /** Telemetry or a reply delivered with the retain flag. */
  retained: 'MC-2.7',
} as const;

export type RefusalReason = keyof typeof REFUSAL_RULES;

/** One refusal told, or the summary of one reason's untold refusals, for the event stream. */
export interface RefusalReport {
  reason: RefusalReason;
  count: number;
  detail: string;
  /** The device that sent it; for a summary, only when one device sent them all. */
  deviceId?: string;
}

export interface RefusalLogOptions {
  log: Log;
  /** Told what the log tells, in the same bounds: each refusal told, and one per reason summed up. */
  report?: (r: RefusalReport) => void;
  /** Refusals logged in full per interval; the rest are summed up. Default 5. */
  perInterval?: number;
  /** Default 10 s (wall time: it paces the log, not the meters). */
  intervalMs?: number;
}

/** Devices named per reason in a summary line; the rest are counted as "more devices". */
const NAMED_IN_SUMMARY = 3;
/** Distinct devices tracked per reason and interval: a bound on memory whoever floods. */
const TRACKED_PER_REASON = 64;

export class RefusalLog {
  /** Every refusal since the start, by reason. */
  readonly counts: Record<RefusalReason, number> = Object.fromEntries(
    Object.keys(REFUSAL_RULES).map((k) => [k, 0]),
  ) as Record<RefusalReason, number>;
  readonly #log: Log;
  readonly #bounded: BoundedLog<RefusalReason>;
  readonly #report: ((r: RefusalReport) => void) | undefined;
  /** Each line is also reported (as a `contract.refused` event): not a `log` event as well. */
  readonly #meta: { event: true } | undefined;

  constructor(opts: RefusalLogOptions) {
    const { log, perInterval = 5, intervalMs = 10_000, report } = opts;
    this.#log = log;
    this.#report = report;
    this.#meta = report ? { event: true } : undefined;
    this.#bounded = new BoundedLog({
      perInterval,
      intervalMs,
      namesPerKey: TRACKED_PER_REASON,
      summarize: (counted) => {
        const parts = [...counted].map(([r, t]) => `${t.n} ${r} [${REFUSAL_RULES[r]}] ${whose(t)}`);
        const total = [...counted.values()].reduce((a, t) => a + t.n, 0);
        log(
          'warn',
          `twins: refused ${total} more not logged one by one in the last ${intervalMs / 1000} s: ${parts.join(', ')}`,
          this.#meta,
        );
        if (report) {
          for (const [reason, t] of counted) {
            const only = t.byName.size === 1 && t.untracked === 0 ? t.byName.keys().next().value : undefined;
            report({
              reason,
              count: t.n,
              detail: `summary [${REFUSAL_RULES[reason]}] ${whose(t)}`,
              deviceId: only,
            });
          }
        }
      },
    });
  }

  /**
   * Counts `n` refusals for `reason` of a message from device `from`; `detail` (built only when it will
   * be logged) says what was refused.
   */
  refuse(reason: RefusalReason, from: string, detail: () => string, n = 1): void {
    this.counts[reason] += n;
    // [MC-9.5] The reason (the counter's name) and the rule: "forgedReply" and "unmatchedReply" share
    // MC-8.9, and a sample may break MC-3.10 two ways, so the rule alone does not say which.
    if (!this.#bounded.note(reason, from, n)) return;
    const told = `${detail()} [${REFUSAL_RULES[reason]}]`;
    this.#log('warn', `twins: refused ${reason}: ${told}`, this.#meta);
    this.#report?.({ reason, count: n, detail: told, deviceId: from });
  }

  /** Counts `n` refusals the caller tells in its own words (or not at all): no line, no event. */
  count(reason: RefusalReason, n = 1): void {
    this.counts[reason] += n;
  }

  /** Counts each item under its reason; one log line per reason, about the first item of it. */
  refuseGrouped<T extends { reason: RefusalReason }>(
    items: readonly T[],
    from: string,
    detail: (first: T, n: number) => string,
  ): void {
    const byReason = new Map<RefusalReason, T[]>();
    for (const item of items) {
      const list = byReason.get(item.reason);
      if (list) list.push(item);
      else byReason.set(item.reason, [item]);
    }
    for (const [reason, list] of byReason)
      this.refuse(reason, from, () => detail(list[0]!, list.length), list.length);
  }

  /** Logs what is still unsummarised and stops the interval timer. */
  stop(): void {
    this.#bounded.flush();
  }
}

/** "(from MTR-1: 990, MTR-2: 7, 4 more devices)": who sent the refused messages, the most first. */
function whose(t: Tally): string {
  const ranked = [...t.byName].sort((a, b) => b[1] - a[1]);
  const named = ranked.slice(0, NAMED_IN_SUMMARY).map(([id, n]) => `${id}: ${n}`);
  const others = ranked.length - named.length;
  // Past TRACKED_PER_REASON devices, how many more there were is not known: "61+".
  const more = others > 0 ? `, ${others}${t.untracked > 0 ? '+' : ''} more device(s)` : '';
  return `(from ${named.join(', ')}${more})`;
}
