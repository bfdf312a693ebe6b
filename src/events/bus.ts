// The in-process event bus: the single source of everything observable (issue 9). Emitting stamps a
// sequence number, virtual time and wall time and hands the event to each subscriber synchronously;
// a subscriber that wants to batch or write does so itself, off the emitter's path.

import { type Redact, redactDeep, secretRedactor } from '../log/redact.ts';
import { type Counter, Metrics } from './metrics.ts';
import type { EventData, EventType, MeterEvent } from './schemas.ts';

export interface EventBusOptions {
  /** Virtual time: the world's clock. */
  now: () => number;
  /** Wall time. Default Date.now. */
  wall?: () => number;
  /** The first sequence number (see seq-reserve.ts for how it survives restarts). Default 1. */
  firstSeq?: number;
  /** false: emit does nothing and returns null (the bus-off baseline of bench/ingest.ts). Default true. */
  enabled?: boolean;
  /**
   * [SEC-1] What every event's strings go through before anyone sees them (journal, durable events,
   * SSE, logs). Default: the patterns of redact.ts alone; a service adds the secrets it knows.
   */
  redact?: Redact;
  /** Where subscriber errors are counted (BUS_METRICS). Default: a registry of the bus's own. */
  metrics?: Metrics;
}

/** [EXT-4] The bus's numbers in the service's metrics (was the public `subscriberErrors`). */
export const BUS_METRICS = { subscriberErrors: 'meterstack_event_subscriber_errors_total' } as const;

export interface EmitContext {
  deviceId?: string;
  accountId?: number;
  /**
   * The virtual time the event happened at, when that is not now: a meter's state change is stamped
   * with the meter's own (checked) ts. Default: the clock's now.
   */
  vt?: number;
}

export type Subscriber = (event: MeterEvent) => void;

/**
 * [EXT-7] What watches answered requests: the fields of one `http.request` event, numbered and stamped
 * like every event, handed over without an event object. A watcher keeps or counts what it needs from
 * `data` (which it must not hold: the caller's object) and builds the event with `requestEvent` only
 * when it hands one on (a live stream open, a log line at its level).
 */
export type RequestWatcher = (
  seq: number,
  vt: number,
  wt: number,
  data: EventData<'http.request'>,
  accountId: number | undefined,
) => void;

/** The `http.request` event a watcher was handed the fields of; the same whoever builds it. */
export function requestEvent(
  seq: number,
  vt: number,
  wt: number,
  data: EventData<'http.request'>,
  accountId: number | undefined,
): MeterEvent<'http.request'> {
  const event: MeterEvent<'http.request'> = { seq, type: 'http.request', vt, wt, data: { ...data } };
  if (accountId !== undefined) event.account_id = accountId;
  return event;
}

export class EventBus {
  readonly #now: () => number;
  readonly #wall: () => number;
  readonly #subscribers = new Set<Subscriber>();
  readonly #requestWatchers = new Set<RequestWatcher>();
  readonly #redact: Redact;
  readonly enabled: boolean;
  #next: number;
  #emitted = false;
  /** Subscriber exceptions caught (a view must never break an emitter). */
  readonly #subscriberErrors: Counter;

  constructor(opts: EventBusOptions) {
    this.#now = opts.now;
    this.#wall = opts.wall ?? Date.now;
    this.#next = opts.firstSeq ?? 1;
    this.enabled = opts.enabled ?? true;
    this.#redact = opts.redact ?? secretRedactor();
    this.#subscriberErrors = (opts.metrics ?? new Metrics()).counter(
      BUS_METRICS.subscriberErrors,
      'Exceptions thrown by event bus subscribers (views), caught so the emitter goes on',
    );
  }

  /**
   * Numbers events from `seq` on: what the durable events extension reads back from the store
   * (extensions/durable/seq-reserve.ts), once the bus exists. Only before the first event: a seq once
   * handed out is never handed out again.
   */
  startAt(seq: number): void {
    if (this.#emitted) throw new Error('EventBus.startAt: events were emitted already');
    if (!Number.isSafeInteger(seq) || seq < 1)
      throw new TypeError(`EventBus.startAt: a sequence number ≥ 1, not ${seq}`);
    this.#next = seq;
  }

  /** The sequence number the next event will get. */
  get nextSeq(): number {
    return this.#next;
  }

  /** Whether anyone but the always-on views listens; emitters may skip costly detail when not. */
  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /**
   * Emits an event to every subscriber. An `http.request` goes the requests' way instead (`request`):
   * to the request watchers, never to subscribers, without a device (a request has none); the event it
   * was is returned.
   */
  emit<T extends EventType>(type: T, data: EventData<T>, ctx?: EmitContext): MeterEvent<T> | null {
    if (!this.enabled) return null;
    if (type === 'http.request') {
      const d = { ...(data as EventData<'http.request'>) };
      let built: MeterEvent<'http.request'> | null = null;
      const keep: RequestWatcher = (seq, vt, wt, clean, accountId) => {
        built = requestEvent(seq, vt, wt, clean, accountId);
      };
      this.#request(d, ctx?.accountId, keep, ctx?.vt);
      return built as MeterEvent<T> | null;
    }
    this.#emitted = true;
    const vt = ctx?.vt ?? this.#now();
    // Redacted here, once, so that no view can hold a secret a client typed [SEC-1].
    const clean = redactDeep(data, this.#redact);
    const event: MeterEvent<T> = { seq: this.#next++, type, vt, wt: this.#wall(), data: clean };
    if (ctx?.deviceId !== undefined) event.device_id = ctx.deviceId;
    if (ctx?.accountId !== undefined) event.account_id = ctx.accountId;
    for (const s of this.#subscribers) {
      try {
        s(event as MeterEvent);
      } catch {
        this.#subscriberErrors.inc();
      }
    }
    return event;
  }

  /**
   * [EXT-7] One answered HTTP request, from the request path's one hook (src/http/request-events.ts):
   * as cheap as the request path allows. It takes the next seq like any event, but no event object is
   * built, kept or dispatched: the request watchers get its fields (the journal keeps them in a ring of
   * numbers, the metrics count them), and a watcher that hands an event on builds it. Subscribers
   * (`subscribe`) never see requests. `data` becomes the bus's: the caller must not use it again.
   */
  request(data: EventData<'http.request'>, accountId?: number): void {
    if (!this.enabled) return;
    this.#request(data, accountId, undefined, undefined);
  }

  #request(
    data: EventData<'http.request'>,
    accountId: number | undefined,
    also: RequestWatcher | undefined,
    at: number | undefined,
  ): void {
    this.#emitted = true;
    const seq = this.#next++;
    const vt = at ?? this.#now();
    const wt = this.#wall();
    // [SEC-1] The URL is what a client typed, and the only field a client chooses: the method passed
    // the HTTP parser, the route is a template of ours, the code one of our error list. Redacted alone,
    // without a walk over the object (every request comes here).
    const url = this.#redact(data.url);
    let clean = data;
    // Equal and clean: the redactor's long-lived copy of it is what a watcher may keep.
    if (url === data.url) data.url = url;
    else clean = { ...data, url };
    for (const w of this.#requestWatchers) {
      try {
        w(seq, vt, wt, clean, accountId);
      } catch {
        this.#subscriberErrors.inc();
      }
    }
    also?.(seq, vt, wt, clean, accountId);
  }

  /** [EXT-7] Watches answered requests (see `request`); returns the function that stops it. */
  onRequest(watcher: RequestWatcher): () => void {
    this.#requestWatchers.add(watcher);
    return () => this.#requestWatchers.delete(watcher);
  }

  /** Every event but answered requests (those go to `onRequest` watchers). Returns the unsubscribe function. */
  subscribe(subscriber: Subscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }
}

/** A bus that drops everything: for units built without a world (tests, the CLI's one-shot commands). */
export function silentBus(): EventBus {
  return new EventBus({ now: Date.now, enabled: false });
}
