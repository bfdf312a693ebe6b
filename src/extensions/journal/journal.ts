// The in-memory journal (issue 9 §3): the newest events in a ring bounded in count and in bytes, like
// WireMock's request journal. Seqs ascend in the ring, so a query finds its start by binary search.
// `telemetry.summary` events are large and come every second: only the newest one is kept, beside
// the ring. Answered requests [EXT-7] are kept beside it too, as fields in columns (request-ring.ts),
// and count against the same bounds: the newest `capacity` events of all kinds, evicted oldest first
// whichever ring holds it. Pure bookkeeping: no I/O, no clock.

import type { EventFilter } from '../../events/filter.ts';
import { matches } from '../../events/filter.ts';
import type { EventData, MeterEvent } from '../../events/schemas.ts';
import { RequestRing, requestBytes } from './request-ring.ts';

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
  readonly #requests: RequestRing;
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
    this.#requests = new RequestRing(capacity);
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
    return this.#count + this.#requests.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The bus subscriber. Events must come in ascending seq, as the bus hands them out. */
  push(e: MeterEvent): void {
    if (e.type === 'http.request') {
      const r = e as MeterEvent<'http.request'>;
      this.pushRequest(r.seq, r.vt, r.wt, r.data, r.account_id);
      return;
    }
    if (e.seq <= this.#lastSeq) return;
    this.#lastSeq = e.seq;
    if (e.type === 'telemetry.summary') {
      this.#summary = e as MeterEvent<'telemetry.summary'>;
      return;
    }
    const size = approxBytes(e);
    if (!this.#makeRoom(e.seq, size)) return;
    const i = (this.#start + this.#count) % this.capacity;
    this.#ring[i] = e;
    this.#sizes[i] = size;
    this.#bytes += size;
    this.#count++;
  }

  /** [EXT-7] The request watcher: an answered request's fields, kept without an event object. */
  pushRequest(
    seq: number,
    vt: number,
    wt: number,
    data: EventData<'http.request'>,
    accountId: number | undefined,
  ): void {
    if (seq <= this.#lastSeq) return;
    this.#lastSeq = seq;
    if (!this.#makeRoom(seq, requestBytes(data))) return;
    this.#bytes += this.#requests.push(seq, vt, wt, data, accountId);
  }

  /**
   * Evicts the oldest events, of either ring, until one of `size` bytes fits; false when it is alone
   * bigger than the whole bound: then it is not kept, and counted as gone.
   */
  #makeRoom(seq: number, size: number): boolean {
    while (this.size > 0 && (this.size === this.capacity || this.#bytes + size > this.maxBytes))
      this.#evictOldest();
    if (size > this.maxBytes) {
      this.#evictedThrough = seq;
      return false;
    }
    return true;
  }

  /** Events with seq > `since` matching `filter`, oldest first, at most `limit`. */
  after(since: number, filter: EventFilter, limit: number): MeterEvent[] {
    const out: MeterEvent[] = [];
    const summary = this.#matchingSummary(filter);
    let summaryDue = summary !== null && summary.seq > since;
    const req = this.#requests;
    const wantRequests = requestsMatch(filter);
    let k = this.#firstAfter(since);
    let r = wantRequests ? req.firstAfter(since) : req.size;
    while (out.length < limit && (k < this.#count || r < req.size)) {
      // The older of the two rings' next, as the bus numbered them.
      const fromRing = r >= req.size || (k < this.#count && this.#at(k).seq < req.seqAt(r));
      const seq = fromRing ? this.#at(k).seq : req.seqAt(r);
      if (summaryDue && summary!.seq < seq) {
        out.push(summary!);
        summaryDue = false;
        continue;
      }
      if (fromRing) {
        const e = this.#at(k++);
        if (matches(filter, e)) out.push(e);
      } else out.push(req.eventAt(r++));
    }
    if (summaryDue && out.length < limit) out.push(summary!);
    return out;
  }

  /** The newest `limit` events matching `filter`, oldest first. */
  newest(filter: EventFilter, limit: number): MeterEvent[] {
    const out: MeterEvent[] = [];
    const summary = this.#matchingSummary(filter);
    let summaryDue = summary !== null;
    const req = this.#requests;
    let k = this.#count - 1;
    let r = requestsMatch(filter) ? req.size - 1 : -1;
    while (out.length < limit && (k >= 0 || r >= 0)) {
      // The newer of the two rings' next, backwards.
      const fromRing = r < 0 || (k >= 0 && this.#at(k).seq > req.seqAt(r));
      const seq = fromRing ? this.#at(k).seq : req.seqAt(r);
      if (summaryDue && summary!.seq > seq) {
        out.push(summary!);
        summaryDue = false;
        continue;
      }
      if (fromRing) {
        const e = this.#at(k--);
        if (matches(filter, e)) out.push(e);
      } else out.push(req.eventAt(r--));
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
    const req = this.#requests;
    if (req.size > 0 && (this.#count === 0 || req.seqAt(0) < this.#ring[this.#start]!.seq)) {
      const gone = req.shift();
      this.#bytes -= gone.bytes;
      this.#evictedThrough = gone.seq;
      return;
    }
    const e = this.#ring[this.#start]!;
    this.#bytes -= this.#sizes[this.#start]!;
    this.#ring[this.#start] = undefined;
    this.#start = (this.#start + 1) % this.capacity;
    this.#count--;
    this.#evictedThrough = e.seq;
  }
}

/** Whether a filter admits answered requests: their type, and no device (a request has none). */
function requestsMatch(filter: EventFilter): boolean {
  return (filter.types === undefined || filter.types.has('http.request')) && filter.deviceId === undefined;
}
