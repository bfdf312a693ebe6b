// A log that stays bounded under a flood (MC-9.5, MC-10.5): the first few events of an interval are
// told one by one (a single wrong password or forged reply is seen at once), the rest are only
// counted by key and by name, and handed to `summarize` when the interval ends. It writes nothing
// itself: the adapters (twins' and the broker's refusal logs) keep their own wording.

/** What one key counted, untold, in an interval. */
export interface Tally {
  n: number;
  /** Counts by name, first seen first; at most `namesPerKey` of them. */
  byName: Map<string, number>;
  /** Events from names past `namesPerKey`: how many distinct names they were is not known. */
  untracked: number;
}

export interface BoundedLogOptions<K extends string> {
  /** Events told one by one per interval; the rest are counted. */
  perInterval: number;
  /**
   * 'interval' (default): `perInterval` is shared by every key, as the refusal logs want (a flood of
   * one reason is one story). 'key': each key has its own share, so a flood of one key never hides
   * another (the bus logger: a burst of 401s must not hide a prepaid cut-off).
   */
  budget?: 'interval' | 'key';
  /** Wall time: it paces the log, not the meters. */
  intervalMs: number;
  /** Distinct names counted per key and interval: a bound on memory whoever floods. */
  namesPerKey: number;
  /** Called when an interval that counted something ends, in the order the keys were first counted. */
  summarize: (counted: ReadonlyMap<K, Tally>) => void;
}

export class BoundedLog<K extends string> {
  /** Every event since the start, by key, told or not. */
  readonly totals = new Map<K, number>();
  readonly #opts: BoundedLogOptions<K>;
  #told = 0;
  readonly #toldByKey = new Map<K, number>();
  #counted = new Map<K, Tally>();
  #timer: NodeJS.Timeout | null = null;

  constructor(opts: BoundedLogOptions<K>) {
    this.#opts = opts;
  }

  /**
   * Notes `n` events under `key` from `name`. True when the caller should tell it now (this interval
   * has not told its share yet); false when it was counted for the interval's summary.
   */
  note(key: K, name?: string, n = 1): boolean {
    this.totals.set(key, (this.totals.get(key) ?? 0) + n);
    if (this.#timer === null) {
      this.#timer = setTimeout(() => this.flush(), this.#opts.intervalMs);
      this.#timer.unref();
    }
    if (this.#opts.budget === 'key') {
      const told = this.#toldByKey.get(key) ?? 0;
      if (told < this.#opts.perInterval) {
        this.#toldByKey.set(key, told + 1);
        return true;
      }
    } else if (this.#told < this.#opts.perInterval) {
      this.#told++;
      return true;
    }
    let t = this.#counted.get(key);
    if (!t) {
      t = { n: 0, byName: new Map(), untracked: 0 };
      this.#counted.set(key, t);
    }
    t.n += n;
    if (name === undefined) return false;
    const had = t.byName.get(name);
    if (had !== undefined) t.byName.set(name, had + n);
    else if (t.byName.size < this.#opts.namesPerKey) t.byName.set(name, n);
    else t.untracked += n;
    return false;
  }

  /** Whether one more event may still be told in this interval (of the shared budget). */
  mayTell(): boolean {
    return this.#told < this.#opts.perInterval;
  }

  /** Ends the interval now: summarizes what was only counted and stops the timer. */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#told = 0;
    this.#toldByKey.clear();
    const counted = this.#counted;
    if (counted.size === 0) return;
    this.#counted = new Map();
    this.#opts.summarize(counted);
  }
}
