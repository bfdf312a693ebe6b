// The service's numbers: named counters and gauges in one registry per running service, which a
// Prometheus extension reads at each scrape (issue 19 §3; rules EXT-3, EXT-4 in src/extensions/README.md).
// A registry and not events: a counter moves at event rate (a failing subscriber fails on every emit,
// and an event about it would be one more emit), while a scraper only wants the current value.
// Facts about single happenings stay events (a dropped stream client is still a `log` line).
// Names follow Prometheus' conventions: `meterstack_` first, `_total` at the end of a counter.
//
// Where prom-client comes in (issue 22 §1, PM-1): each Metrics owns one prom-client Registry, never the
// global one (several services run in one test process). The plain counters and gauges stay closures
// over a number, as cheap on a hot path as before; each is also a prom-client metric whose value is
// copied in at scrape time (`collect`). Series that need labels or buckets (requests by route and
// status, command latency by op) are prom-client's own, made here so a name is still one metric.

import {
  Counter as PromCounter,
  Gauge as PromGauge,
  Histogram as PromHistogram,
  Registry,
} from 'prom-client';
import { HotCounter, HotHistogram } from './hot-series.ts';

export type MetricKind = 'counter' | 'gauge';

/** prom-client's labelled series, as made by Metrics (PM-2: low-cardinality label values only). */
export type LabelledCounter<L extends string> = PromCounter<L>;
export type LabelledHistogram<L extends string> = PromHistogram<L>;
/** Sets one labelled value of a gauge computed at scrape time. */
export type SetLabelled<L extends string> = (labels: Record<L, string>, value: number) => void;

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
  /** The labelled series, by name (a name is one metric, of one kind). */
  readonly #families = new Map<
    string,
    PromCounter<string> | PromGauge<string> | PromHistogram<string> | HotCounter | HotHistogram
  >();
  /** [PM-1] This service's registry: what GET /metrics writes. */
  readonly registry = new Registry();

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

  /** A counter with labels (prom-client's): hot paths keep the `.labels(...)` child they use. */
  labelledCounter<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
  ): LabelledCounter<L> {
    return this.#family(name, 'counter', () => new PromCounter({ name, help, labelNames, registers: [] }));
  }

  /** A histogram (seconds, Prometheus' unit) with labels and the given upper bounds. */
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ): LabelledHistogram<L> {
    return this.#family(
      name,
      'histogram',
      () => new PromHistogram({ name, help, labelNames, buckets: [...buckets], registers: [] }),
    );
  }

  /** A labelled counter for a hot path: children of plain numbers (hot-series.ts). */
  hotCounter(name: string, help: string, labelNames: readonly string[]): HotCounter {
    return this.#family(name, 'counter', () => new HotCounter(name, help, labelNames));
  }

  /** A labelled histogram (seconds) for a hot path: children of plain numbers (hot-series.ts). */
  hotHistogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ): HotHistogram {
    return this.#family(name, 'histogram', () => new HotHistogram(name, help, labelNames, buckets));
  }

  /**
   * A gauge with labels whose values are computed at scrape time by `read` (meters by mode and model:
   * a count kept elsewhere, never updated on the hot path). Label sets `read` no longer sets are gone.
   */
  labelledGauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: (set: SetLabelled<L>) => void,
  ): void {
    this.#family(
      name,
      'gauge',
      () =>
        new PromGauge<L>({
          name,
          help,
          labelNames,
          registers: [],
          collect() {
            this.reset();
            read((labels, value) => this.set(labels as never, value));
          },
        }),
    );
  }

  /** The Prometheus text of every metric of this registry (PM-1). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The content type of `text()`. */
  get contentType(): string {
    return this.registry.contentType;
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
      if (this.#families.has(name)) throw new TypeError(`metric ${name} has labels; it is not a ${kind}`);
      this.#entries.set(name, { help, kind, handle });
      this.#register(name, help, kind, handle);
      return handle;
    }
    if (known.kind !== kind) throw new TypeError(`metric ${name} is a ${known.kind}, not a ${kind}`);
    return known.handle as H;
  }

  /** The plain metric in the registry too, its value copied in at each scrape. */
  #register(name: string, help: string, kind: MetricKind, handle: Counter | Gauge): void {
    const metric =
      kind === 'counter'
        ? new PromCounter({
            name,
            help,
            registers: [],
            collect() {
              this.reset();
              this.inc(handle.value);
            },
          })
        : new PromGauge({
            name,
            help,
            registers: [],
            collect() {
              this.set(handle.value);
            },
          });
    this.registry.registerMetric(metric);
  }

  #family<
    M extends PromCounter<string> | PromGauge<string> | PromHistogram<string> | HotCounter | HotHistogram,
  >(name: string, kind: 'counter' | 'gauge' | 'histogram', make: () => M): M {
    if (!NAME.test(name))
      throw new TypeError(`metric name ${JSON.stringify(name)} is not [a-zA-Z_:][a-zA-Z0-9_:]*`);
    if (this.#entries.has(name))
      throw new TypeError(`metric ${name} has no labels; it is not a labelled ${kind}`);
    const known = this.#families.get(name);
    if (known !== undefined) {
      const knownKind =
        known instanceof PromHistogram || known instanceof HotHistogram
          ? 'histogram'
          : known instanceof PromGauge
            ? 'gauge'
            : 'counter';
      if (knownKind !== kind) throw new TypeError(`metric ${name} is a ${knownKind}, not a ${kind}`);
      return known as M;
    }
    const metric = make();
    this.#families.set(name, metric);
    // A hot series has the shape the Registry reads (get()), not prom-client's class.
    this.registry.registerMetric(metric as PromCounter<string>);
    return metric;
  }
}

/**
 * [PM-3] What GET /metrics serves, given by the Prometheus extension (src/extensions/prometheus): the
 * text of the service's registry and the process's, and whether a scrape needs the admin token.
 */
export interface MetricsExposition {
  /** true: open to anyone who reaches the port (`--metrics-public`); false: the admin token as a bearer token. */
  readonly public: boolean;
  readonly contentType: string;
  text(): Promise<string>;
}
