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

export class EventBus {
  readonly #now: () => number;
  readonly #wall: () => number;
  readonly #subscribers = new Set<Subscriber>();
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

  emit<T extends EventType>(type: T, data: EventData<T>, ctx?: EmitContext): MeterEvent<T> | null {
    if (!this.enabled) return null;
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

  /** Returns the unsubscribe function. */
  subscribe(subscriber: Subscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }
}

/** A bus that drops everything: for units built without a world (tests, the CLI's one-shot commands). */
export function silentBus(): EventBus {
  return new EventBus({ now: Date.now, enabled: false });
}
