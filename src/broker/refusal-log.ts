// [MC-10.5] A flood of refusals is logged as one summary line per interval, not one line each: the
// first few of an interval are logged as they happen (a single wrong password is seen at once), the
// rest are counted by reason and summed up when the interval ends, e.g.
// "refused 1,532 logins in the last 10 s: 1,500 bad username or password (users x, y, … 3 distinct), …".

import type { Log } from './broker.ts';

export interface RefusalLogOptions {
  /** Names what is refused in the summary: 'logins', 'connections'. */
  what: string;
  log: Log;
  intervalMs: number;
  /** Refusals logged one by one per interval before they are only counted. Default 5. */
  immediate?: number;
}

const SHOWN_NAMES = 3;

export class RefusalLog {
  readonly #opts: Required<RefusalLogOptions>;
  /** Refusals ever, by reason: the counter a test or a status page reads. */
  readonly totals = new Map<string, number>();
  #lines = 0;
  #counted = new Map<string, { n: number; names: Set<string> }>();
  #timer: NodeJS.Timeout | null = null;

  constructor(opts: RefusalLogOptions) {
    this.#opts = { immediate: 5, ...opts };
  }

  /**
   * Counts one refusal. `line` is logged now unless this interval already logged its share; null
   * when the caller logged it already (after asking `mayLogLine`).
   */
  note(reason: string, line: string | null, name?: string): void {
    this.totals.set(reason, (this.totals.get(reason) ?? 0) + 1);
    this.#timer ??= setTimeout(() => this.flush(), this.#opts.intervalMs).unref();
    if (this.#lines < this.#opts.immediate) {
      this.#lines++;
      if (line !== null) this.#opts.log('info', line);
      return;
    }
    let entry = this.#counted.get(reason);
    if (!entry) {
      entry = { n: 0, names: new Set() };
      this.#counted.set(reason, entry);
    }
    entry.n++;
    if (name !== undefined && entry.names.size < 1000) entry.names.add(name);
  }

  /** Whether a line about one more refusal may still be logged in this interval. */
  mayLogLine(): boolean {
    return this.#lines < this.#opts.immediate;
  }

  /** Ends the interval: logs the summary of what was only counted. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const counted = [...this.#counted].sort((a, b) => b[1].n - a[1].n);
    this.#lines = 0;
    this.#counted = new Map();
    if (counted.length === 0) return;
    const total = counted.reduce((sum, [, e]) => sum + e.n, 0) + this.#opts.immediate;
    const parts = counted.map(([reason, e]) => {
      const names = [...e.names];
      const shown = names.slice(0, SHOWN_NAMES).join(', ');
      const more = names.length > SHOWN_NAMES ? `, … ${names.length} distinct` : '';
      return `${e.n.toLocaleString('en')} ${reason}${names.length > 0 ? ` (${names.length === 1 ? 'user' : 'users'} ${shown}${more})` : ''}`;
    });
    const secs = this.#opts.intervalMs / 1000;
    this.#opts.log(
      'warn',
      `refused ${total.toLocaleString('en')} ${this.#opts.what} in the last ${secs} s: ${parts.join(', ')} ` +
        `(the first ${this.#opts.immediate} logged above) [MC-10.5]`,
    );
  }

  close(): void {
    this.flush();
  }
}
