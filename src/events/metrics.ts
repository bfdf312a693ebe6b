// The service's numbers: named counters and gauges in one registry per running service, which a
// Prometheus extension reads at each scrape (issue 19 §3; rules EXT-3, EXT-4 in src/extensions/README.md).
// A registry and not events: a counter moves at event rate (a failing subscriber fails on every emit,
// and an event about it would be one more emit), while a scraper only wants the current value.
// Facts about single happenings stay events (a dropped stream client is still a `log` line).
// Names follow Prometheus' conventions: `meterstack_` first, `_total` at the end of a counter.

export type MetricKind = 'counter' | 'gauge';

export interface Counter {
  /** Adds `n` (default 1); a counter only goes up. */
  inc(n?: number): void;
  readonly value: number;
}

export interface Gauge {
  set(value: number): void;
  readonly value: number;
}

/** One metric as a scrape sees it. */
export interface MetricSample {
  name: string;
  help: string;
  kind: MetricKind;
  value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

interface Entry {
  help: string;
  kind: MetricKind;
  handle: Counter | Gauge;
}

export class Metrics {
  readonly #entries = new Map<string, Entry>();

  /** The counter named `name`, made on first use; the same one for every later call. */
  counter(name: string, help: string): Counter {
    let value = 0;
    return this.#add(name, help, 'counter', {
      inc(n = 1) {
        if (!(n >= 0)) throw new TypeError(`counter ${name}: an increment must be ≥ 0, not ${n}`);
        value += n;
      },
      get value() {
        return value;
      },
    });
  }

  /**
   * A gauge named `name`. With `read`, its value is read at each scrape (open streams: a size that is
   * already kept elsewhere), and `set` is refused.
   */
  gauge(name: string, help: string, read?: () => number): Gauge {
    let value = 0;
    return this.#add(name, help, 'gauge', {
      set(v) {
        if (read) throw new TypeError(`gauge ${name} is read from its source; it cannot be set`);
        value = v;
      },
      get value() {
        return read ? read() : value;
      },
    });
  }

  /** The current value of `name`, or undefined when no such metric was made. */
  value(name: string): number | undefined {
    return this.#entries.get(name)?.handle.value;
  }

  /** Every metric now, in the order they were made. */
  collect(): MetricSample[] {
    return [...this.#entries].map(([name, e]) => ({
      name,
      help: e.help,
      kind: e.kind,
      value: e.handle.value,
    }));
  }

  /** Registers `handle` under `name`, or gives the one registered first (a name is one metric). */
  #add<H extends Counter | Gauge>(name: string, help: string, kind: MetricKind, handle: H): H {
    if (!NAME.test(name))
      throw new TypeError(`metric name ${JSON.stringify(name)} is not [a-zA-Z_:][a-zA-Z0-9_:]*`);
    const known = this.#entries.get(name);
    if (known === undefined) {
      this.#entries.set(name, { help, kind, handle });
      return handle;
    }
    if (known.kind !== kind) throw new TypeError(`metric ${name} is a ${known.kind}, not a ${kind}`);
    return known.handle as H;
  }
}
