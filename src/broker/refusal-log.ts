// [MC-10.5] A flood of refusals is logged as one summary line per interval, not one line each: the
// first few of an interval are logged as they happen (a single wrong password is seen at once), the
// rest are counted by reason and summed up when the interval ends, e.g.
// "refused 1,532 logins in the last 10 s: 1,500 bad username or password (users x, y, … 3 distinct), …".
// The bounding itself is src/log/bounded.ts; this file keeps the broker's wording.

import { BoundedLog } from '../log/bounded.ts';
import type { Log } from './broker.ts';

/** Who was refused, as far as the broker knows: a client id once CONNECT came, else the peer. */
export interface Refused {
  clientId?: string;
  peer?: string;
}

/** One refusal told, or one reason's untold refusals summed up (`count`), for the event stream. */
export interface RefusalReport extends Refused {
  reason: string;
  /** The username given (a summary names the first one). */
  name?: string;
  count: number;
}

export interface RefusalLogOptions {
  /** Told what the log tells, within its bounds: each refusal told, and one per reason summed up. */
  report?: (r: RefusalReport) => void;
  /** Names what is refused in the summary: 'logins', 'connections'. */
  what: string;
  log: Log;
  intervalMs: number;
  /** Refusals logged one by one per interval before they are only counted. Default 5. */
  immediate?: number;
}

const SHOWN_NAMES = 3;
/** Distinct user names kept per reason and interval. */
const KEPT_NAMES = 1000;

export class RefusalLog {
  readonly #log: Log;
  readonly #bounded: BoundedLog<string>;
  readonly #report: ((r: RefusalReport) => void) | undefined;
  /** Each line is also reported (as a `broker.refused` event): not a `log` event as well. */
  readonly #meta: { event: true } | undefined;

  constructor(opts: RefusalLogOptions) {
    const { what, log, intervalMs, immediate = 5, report } = opts;
    this.#log = log;
    this.#report = report;
    this.#meta = report ? { event: true } : undefined;
    this.#bounded = new BoundedLog({
      perInterval: immediate,
      intervalMs,
      namesPerKey: KEPT_NAMES,
      summarize: (tallies) => {
        const counted = [...tallies].sort((a, b) => b[1].n - a[1].n);
        const total = counted.reduce((sum, [, t]) => sum + t.n, 0) + immediate;
        const parts = counted.map(([reason, t]) => {
          const names = [...t.byName.keys()];
          const shown = names.slice(0, SHOWN_NAMES).join(', ');
          const more = names.length > SHOWN_NAMES ? `, … ${names.length} distinct` : '';
          return `${t.n.toLocaleString('en')} ${reason}${names.length > 0 ? ` (${names.length === 1 ? 'user' : 'users'} ${shown}${more})` : ''}`;
        });
        log(
          'warn',
          `refused ${total.toLocaleString('en')} ${what} in the last ${intervalMs / 1000} s: ${parts.join(', ')} ` +
            `(the first ${immediate} logged above) [MC-10.5]`,
          this.#meta,
        );
        for (const [reason, t] of counted)
          report?.({ reason, name: t.byName.keys().next().value, count: t.n });
      },
    });
  }

  /** Refusals ever, by reason: the counter a test or a status page reads. */
  get totals(): ReadonlyMap<string, number> {
    return this.#bounded.totals;
  }

  /**
   * Counts one refusal. `line` is logged now unless this interval already logged its share; null
   * when the refusal was logged already (an authentication backend failing, at error level).
   */
  note(reason: string, line: string | null, name?: string, who?: Refused): void {
    if (!this.#bounded.note(reason, name)) return;
    if (line !== null) this.#log('info', line, this.#meta);
    this.#report?.({ reason, name, count: 1, ...who });
  }

  /** Ends the interval: logs the summary of what was only counted. */
  flush(): void {
    this.#bounded.flush();
  }

  close(): void {
    this.flush();
  }
}
