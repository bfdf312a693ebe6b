// [PM-4] Each bus event into the series it moves. Called for every event on the emitter's path, so the
// common ones (http.request, telemetry.summary) find their labelled child in a map and allocate nothing
// once warm; values a client can choose (route of a 404, a refusal reason, a command op) are bounded
// [PM-2].

import type { EventData, MeterEvent } from '../../events/schemas.ts';
import { BoundedLabel, OTHER } from './bounded-label.ts';
import type { BusSeries } from './series.ts';

interface Inc {
  inc(n?: number): void;
}
interface Observe {
  observe(v: number): void;
}

interface RouteSeries {
  method: string;
  route: string;
  latency: Observe;
  byStatus: Map<number, Inc>;
}

/** Label values kept per label before the rest count as `other`. */
const MAX_VALUES = { route: 200, reason: 64, op: 32 } as const;

export class EventCounter {
  readonly #s: BusSeries;
  readonly #routes = new BoundedLabel(MAX_VALUES.route);
  readonly #reasons = new BoundedLabel(MAX_VALUES.reason);
  readonly #brokerReasons = new BoundedLabel(MAX_VALUES.reason);
  readonly #ops = new BoundedLabel(MAX_VALUES.op);
  /** route → method → its series (no key built per request); those past the bound share `#other`. */
  readonly #routeSeries = new Map<string, Map<string, RouteSeries>>();
  #other: RouteSeries | null = null;
  #requestsByType: Inc | null = null;
  readonly #byType = new Map<string, Inc>();
  /** op → outcome → its two series (no labels hashed per command); past the bound, under `other`. */
  readonly #commandSeries = new Map<string, Map<string, { count: Inc; latency: Observe }>>();

  constructor(series: BusSeries) {
    this.#s = series;
  }

  count(e: MeterEvent): void {
    let typed = this.#byType.get(e.type);
    if (typed === undefined) {
      typed = this.#s.events.child(e.type);
      this.#byType.set(e.type, typed);
    }
    typed.inc();
    switch (e.type) {
      case 'http.request':
        this.#http((e as MeterEvent<'http.request'>).data);
        return;
      case 'telemetry.summary': {
        const { messages, samples } = (e as MeterEvent<'telemetry.summary'>).data;
        if (messages > 0) this.#s.telemetryMessages.inc(messages);
        if (samples > 0) this.#s.telemetrySamples.inc(samples);
        return;
      }
      case 'contract.refused': {
        const d = (e as MeterEvent<'contract.refused'>).data;
        this.#s.refused.labels(this.#reasons.of(d.reason)).inc(d.count);
        return;
      }
      case 'command.sent':
      case 'command.acked':
      case 'command.refused':
      case 'command.timeout':
        this.#command(
          e as MeterEvent<'command.sent' | 'command.acked' | 'command.refused' | 'command.timeout'>,
        );
        return;
      case 'money.recharge':
        this.#s.recharges.labels((e as MeterEvent<'money.recharge'>).data.outcome).inc();
        return;
      case 'meter.connected':
        this.#s.meterConnections.inc();
        return;
      case 'broker.refused': {
        const d = (e as MeterEvent<'broker.refused'>).data;
        this.#s.brokerRefused.labels(this.#brokerReasons.of(d.reason)).inc(d.count ?? 1);
        return;
      }
      case 'clock.advanced':
        this.#s.clockAdvances.inc();
        return;
    }
  }

  /**
   * [EXT-7] One answered request, from the bus's request watcher: counted as its event would have been
   * (the events series by type, then the request series), from its fields.
   */
  request(d: EventData<'http.request'>): void {
    this.#requestsByType ??= this.#s.events.child('http.request');
    this.#requestsByType.inc();
    this.#http(d);
  }

  #http(d: EventData<'http.request'>): void {
    const { method, route, status, latency_ms, code } = d;
    const series = this.#route(method, route);
    let child = series.byStatus.get(status);
    if (child === undefined) {
      // Statuses are HTTP's own three digits: bounded.
      child = this.#s.httpRequests.child(series.method, series.route, String(status));
      series.byStatus.set(status, child);
    }
    child.inc();
    series.latency.observe(latency_ms / 1000);
    if (code === 'rate_limit_exceeded') this.#s.rateLimited.inc();
  }

  /**
   * The series of one method and route template. Templates are bounded by the app's routes ('(no route)'
   * stands for every unknown path); past the bound, one shared `other` series, kept under no new key.
   */
  #route(method: string, route: string): RouteSeries {
    const known = this.#routeSeries.get(route)?.get(method);
    if (known !== undefined) return known;
    const key = `${method} ${route}`;
    if (this.#routes.of(key) !== key) {
      this.#other ??= this.#series(OTHER, OTHER);
      return this.#other;
    }
    let byMethod = this.#routeSeries.get(route);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.#routeSeries.set(route, byMethod);
    }
    const series = this.#series(method, route);
    byMethod.set(method, series);
    return series;
  }

  #series(method: string, route: string): RouteSeries {
    return { method, route, latency: this.#s.httpLatency.child(method, route), byStatus: new Map() };
  }

  #command(e: MeterEvent<'command.sent' | 'command.acked' | 'command.refused' | 'command.timeout'>): void {
    const outcome = e.type.slice('command.'.length);
    let byOutcome = this.#commandSeries.get(e.data.op);
    if (byOutcome === undefined) {
      // Ops past the bound share `other`'s children [PM-2].
      const op = this.#ops.of(e.data.op);
      byOutcome = op === e.data.op ? new Map() : (this.#commandSeries.get(OTHER) ?? new Map());
      this.#commandSeries.set(op, byOutcome);
    }
    let series = byOutcome.get(outcome);
    if (series === undefined) {
      const op = this.#ops.of(e.data.op);
      series = {
        count: this.#s.commands.child(op, outcome),
        latency: this.#s.commandLatency.child(op, outcome),
      };
      byOutcome.set(outcome, series);
    }
    series.count.inc();
    if ('latency_ms' in e.data) series.latency.observe(e.data.latency_ms / 1000);
  }
}
