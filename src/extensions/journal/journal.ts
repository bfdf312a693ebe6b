// The in-memory journal (issue 9 §3): the newest events in a ring bounded in count and in bytes, like
// WireMock's request journal. Seqs ascend in the ring, so a query finds its start by binary search.
// `telemetry.summary` events are large and come every second: only the newest one is kept, beside
// the ring. Pure bookkeeping: no I/O, no clock.

import type { EventFilter } from '../../events/filter.ts';
import { matches } from '../../events/filter.ts';
import type { MeterEvent } from '../../events/schemas.ts';

export interface JournalOptions {
  /** Events kept at most. Default 10,000. */
  capacity?: number;
  /** Approximate bytes kept at most (see approxBytes). Default 64 MiB. */
  maxBytes?: number;
  /** The seq of the first event this journal will see (the bus's nextSeq when it subscribes). Default 1. */
  firstSeq?: number;
}

export const DEFAULT_JOURNAL_SIZE = 10_000;
export const DEFAULT_JOURNAL_BYTES = 64 * 1024 * 1024;

/**
 * A cheap estimate of what an event holds in memory, counted without serialising it: a fixed part for
 * the object and its numbers, plus two bytes per character of its strings (UTF-16). Strings are what
 * can make one event big (a log line, a URL, a refusal's detail).
 */
export function approxBytes(e: MeterEvent): number {
  let n = 160 + (e.device_id?.length ?? 0) * 2;
  for (const v of Object.values(e.data as Record<string, unknown>)) {
    if (typeof v === 'string') n += 16 + v.length * 2;
    else if (Array.isArray(v)) for (const x of v) n += typeof x === 'string' ? 16 + x.length * 2 : 64;
    else n += 16;
  }
  return n;
}

export class Journal {
  readonly capacity: number;
  readonly maxBytes: number;
  readonly #ring: (MeterEvent | undefined)[];
  readonly #sizes: Float64Array;
  #start = 0;
  #count = 0;
  #bytes = 0;
  #summary: MeterEvent<'telemetry.summary'> | null = null;
  #lastSeq: number;
  #evictedThrough: number;

  constructor(opts: JournalOptions = {}) {
    const { capacity = DEFAULT_JOURNAL_SIZE, maxBytes = DEFAULT_JOURNAL_BYTES, firstSeq = 1 } = opts;
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new TypeError(`Journal: capacity must be a positive integer, not ${capacity}`);
    if (!Number.isFinite(maxBytes) || maxBytes < 1)
      throw new TypeError(`Journal: maxBytes must be a positive number, not ${maxBytes}`);
    if (!Number.isInteger(firstSeq) || firstSeq < 1)
      throw new TypeError(`Journal: firstSeq must be a positive integer, not ${firstSeq}`);
    this.capacity = capacity;
    this.maxBytes = maxBytes;
    this.#ring = new Array(capacity);
    this.#sizes = new Float64Array(capacity);
    this.#lastSeq = firstSeq - 1;
    this.#evictedThrough = firstSeq - 1;
  }

  /** The newest seq seen, kept or not. */
  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Every event with a seq from here on is in memory (telemetry summaries: the newest only). */
  get oldestSeq(): number {
    return this.#evictedThrough + 1;
  }

  get size(): number {
    return this.#count;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The bus subscriber. Events must come in ascending seq, as the bus hands them out. */
  push(e: MeterEvent): void {
    if (e.seq <= this.#lastSeq) return;
    this.#lastSeq = e.seq;
    if (e.type === 'telemetry.summary') {
      this.#summary = e as MeterEvent<'telemetry.summary'>;
      return;
    }
    const size = approxBytes(e);
    while (this.#count > 0 && (this.#count === this.capacity || this.#bytes + size > this.maxBytes))
      this.#evictOldest();
    if (size > this.maxBytes) {
      // Alone bigger than the whole bound: not kept, and counted as gone.
      this.#evictedThrough = e.seq;
      return;
    }
    const i = (this.#start + this.#count) % this.capacity;
    this.#ring[i] = e;
    this.#sizes[i] = size;
    this.#bytes += size;
    this.#count++;
  }

  /** Events with seq > `since` matching `filter`, oldest first, at most `limit`. */
  after(since: number, filter: EventFilter, limit: number): MeterEvent[] {
    const out: MeterEvent[] = [];
    const summary = this.#matchingSummary(filter);
    let summaryDue = summary !== null && summary.seq > since;
    for (let k = this.#firstAfter(since); k < this.#count && out.length < limit; k++) {
      const e = this.#at(k);
      if (summaryDue && summary!.seq < e.seq) {
        out.push(summary!);
        summaryDue = false;
        if (out.length === limit) break;
      }
      if (matches(filter, e)) out.push(e);
    }
    if (summaryDue && out.length < limit) out.push(summary!);
    return out;
  }

  /** The newest `limit` events matching `filter`, oldest first. */
  newest(filter: EventFilter, limit: number): MeterEvent[] {
    const out: MeterEvent[] = [];
    const summary = this.#matchingSummary(filter);
    let summaryDue = summary !== null;
    for (let k = this.#count - 1; k >= 0 && out.length < limit; k--) {
      const e = this.#at(k);
      if (summaryDue && summary!.seq > e.seq) {
        out.push(summary!);
        summaryDue = false;
        if (out.length === limit) break;
      }
      if (matches(filter, e)) out.push(e);
    }
    if (summaryDue && out.length < limit) out.push(summary!);
    return out.reverse();
  }

  #matchingSummary(filter: EventFilter): MeterEvent | null {
    const s = this.#summary;
    return s !== null && matches(filter, s) ? s : null;
  }

  #at(k: number): MeterEvent {
    return this.#ring[(this.#start + k) % this.capacity]!;
  }

  /** The logical index of the first kept event with seq > `since` (binary search; seqs ascend). */
  #firstAfter(since: number): number {
    let lo = 0;
    let hi = this.#count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#at(mid).seq <= since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  #evictOldest(): void {
    const e = this.#ring[this.#start]!;
    this.#bytes -= this.#sizes[this.#start]!;
    this.#ring[this.#start] = undefined;
    this.#start = (this.#start + 1) % this.capacity;
    this.#count--;
    this.#evictedThrough = e.seq;
  }
}
