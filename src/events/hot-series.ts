// Labelled counters and histograms for the hottest paths (a series moved by every HTTP request or every
// event): each child is a closure over plain numbers, found once and kept by its caller, so counting
// hashes no labels and allocates nothing (prom-client's own children hash their labels on every call).
// They are registered in the service's prom-client Registry as metrics of their own (the `get()` shape
// the Registry writes), read only at scrape time (PM-1, PM-6).

export interface CounterChild {
  inc(n?: number): void;
}

export interface HistogramChild {
  observe(value: number): void;
}

interface Value {
  value: number;
  labels: Record<string, string>;
  metricName?: string;
}

/** What a prom-client Registry reads of a metric. */
export interface RegistryMetric {
  readonly name: string;
  readonly help: string;
  get(): { name: string; help: string; type: string; aggregator: 'sum'; values: Value[] };
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  if (values.length !== names.length)
    throw new TypeError(`labels ${names.join(', ')}: ${values.length} values given, not ${names.length}`);
  return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
}

export class HotCounter implements RegistryMetric {
  readonly #children = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** The child of these label values (in labelNames' order); keep it, calls on it cost a number's add. */
  child(...values: string[]): CounterChild {
    const key = values.join('\u0000');
    let c = this.#children.get(key);
    if (c === undefined) {
      c = { labels: labelsOf(this.labelNames, values), value: 0 };
      this.#children.set(key, c);
    }
    const entry = c;
    return {
      inc(n = 1) {
        if (!(n >= 0)) throw new TypeError(`counter: an increment must be ≥ 0, not ${n}`);
        entry.value += n;
      },
    };
  }

  get() {
    const values = [...this.#children.values()].map((c) => ({ labels: c.labels, value: c.value }));
    return { name: this.name, help: this.help, type: 'counter', aggregator: 'sum' as const, values };
  }
}

export class HotHistogram implements RegistryMetric {
  readonly #buckets: readonly number[];
  readonly #children = new Map<
    string,
    { labels: Record<string, string>; counts: Float64Array; sum: number; count: number }
  >();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    buckets: readonly number[],
  ) {
    this.#buckets = [...buckets].sort((a, b) => a - b);
    if (this.#buckets.some((b) => !Number.isFinite(b)))
      throw new TypeError(`histogram ${name}: finite buckets only`);
  }

  child(...values: string[]): HistogramChild {
    const key = values.join('\u0000');
    let c = this.#children.get(key);
    if (c === undefined) {
      c = {
        labels: labelsOf(this.labelNames, values),
        counts: new Float64Array(this.#buckets.length),
        sum: 0,
        count: 0,
      };
      this.#children.set(key, c);
    }
    const entry = c;
    const buckets = this.#buckets;
    return {
      observe(v) {
        let i = 0;
        while (i < buckets.length && v > buckets[i]!) i++;
        if (i < buckets.length) entry.counts[i]!++;
        entry.sum += v;
        entry.count++;
      },
    };
  }

  get() {
    const values: Value[] = [];
    for (const c of this.#children.values()) {
      let cumulative = 0;
      this.#buckets.forEach((le, i) => {
        cumulative += c.counts[i]!;
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { ...c.labels, le: String(le) },
          value: cumulative,
        });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...c.labels, le: '+Inf' }, value: c.count });
      values.push({ metricName: `${this.name}_sum`, labels: c.labels, value: c.sum });
      values.push({ metricName: `${this.name}_count`, labels: c.labels, value: c.count });
    }
    return { name: this.name, help: this.help, type: 'histogram', aggregator: 'sum' as const, values };
  }
}
