// The `prometheus` extension (issue 22 §1; rules PM-1..PM-6 in README.md): counts the bus's events into
// labelled series of the service's registry, adds the virtual clock's gauges, and gives GET /metrics its
// text (the service's registry, then the process's). It only subscribes and reads: switched off
// (`--metrics off`), nothing counts and /metrics is 404.

import type { MetricsExposition } from '../../events/metrics.ts';
import type { Extension, ExtensionContext } from '../extension.ts';
import { EventCounter } from './count-events.ts';
import { processRegistry } from './process-metrics.ts';
import { busSeries } from './series.ts';

export interface PrometheusExtensionOptions {
  /** [PM-3] true: GET /metrics without the admin token (`--metrics-public`). Default false. */
  public?: boolean;
  /** [PM-5] The process's metrics (CPU, memory, event loop) after the service's. Default true. */
  processMetrics?: boolean;
}

export class PrometheusExtension implements Extension {
  readonly name = 'prometheus';
  readonly #opts: PrometheusExtensionOptions;
  #ctx: ExtensionContext | null = null;
  #unsubscribe: (() => void) | null = null;

  constructor(opts: PrometheusExtensionOptions = {}) {
    this.#opts = opts;
  }

  start(ctx: ExtensionContext): void {
    this.#ctx = ctx;
    const { metrics, clock } = ctx;
    const counter = new EventCounter(busSeries(metrics));
    // A subscriber that threw would be counted by the bus and the emitter goes on (EventBus.emit).
    const events = ctx.bus.subscribe((event) => counter.count(event));
    // [EXT-7] Requests counted from their fields: no event object is built for them.
    const requests = ctx.bus.onRequest((_seq, _vt, _wt, data) => counter.request(data));
    this.#unsubscribe = () => {
      events();
      requests();
    };
    metrics.gauge(
      'meterstack_clock_virtual_seconds',
      "The world's virtual time, seconds since the epoch",
      () => Math.floor(clock.now() / 1000),
    );
    metrics.gauge(
      'meterstack_clock_speed',
      'Virtual ms per wall ms (1: real time, 0: paused)',
      () => clock.speed ?? 1,
    );
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  exposition(): MetricsExposition {
    const ctx = this.#ctx;
    if (ctx === null) throw new Error('prometheus: exposition() before start()');
    const withProcess = this.#opts.processMetrics ?? true;
    return {
      public: this.#opts.public ?? false,
      contentType: ctx.metrics.contentType,
      async text() {
        const own = await ctx.metrics.text();
        return withProcess ? own + (await processRegistry().metrics()) : own;
      },
    };
  }
}
