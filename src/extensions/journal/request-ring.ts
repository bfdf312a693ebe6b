// The journal's answered requests [EXT-7]: the fields of `http.request` events in columns (typed arrays
// for the numbers, plain arrays for the strings), oldest first, so that keeping the newest thousands of
// requests costs no object per request and the garbage collector nothing to promote but the URL. An
// event object is built only when a query reads one. Pure bookkeeping: the journal (journal.ts) decides
// what is evicted, in seq order with its other events.

import { requestEvent } from '../../events/bus.ts';
import type { EventData, MeterEvent } from '../../events/schemas.ts';

/** Columns start this long and double up to the journal's capacity: a quiet service holds little. */
const FIRST_LENGTH = 256;
/** `account` when the request had none. */
const NO_ACCOUNT = -1;

/**
 * What `approxBytes` (journal.ts) counts for the event these fields make: the same estimate, from the
 * fields, so a request weighs the same in the byte bound as it did as an object.
 */
export function requestBytes(data: EventData<'http.request'>): number {
  let n = 160 + 16 * 6; // the object; method, route, url, status, latency, account
  n += (data.method.length + data.route.length + data.url.length) * 2;
  if (data.code !== undefined) n += 16 + data.code.length * 2;
  return n;
}

/** An account id (a positive SQL integer) as kept; none, or one past int32 (never seen), as NO_ACCOUNT. */
function asInt32(id: number | null | undefined): number {
  return id !== null && id !== undefined && Number.isInteger(id) && id >= 0 && id <= 0x7fffffff
    ? id
    : NO_ACCOUNT;
}

export class RequestRing {
  readonly capacity: number;
  #seq: Float64Array;
  #vt: Float64Array;
  #wt: Float64Array;
  #latency: Float64Array;
  #bytes: Float64Array;
  #status: Uint16Array;
  #account: Int32Array;
  /** The account the event was told of (EmitContext), beside the one in its data. */
  #told: Int32Array;
  #method: string[];
  #route: string[];
  #url: string[];
  #code: (string | undefined)[];
  #start = 0;
  #count = 0;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new TypeError(`RequestRing: capacity must be a positive integer, not ${capacity}`);
    this.capacity = capacity;
    const n = Math.min(capacity, FIRST_LENGTH);
    this.#seq = new Float64Array(n);
    this.#vt = new Float64Array(n);
    this.#wt = new Float64Array(n);
    this.#latency = new Float64Array(n);
    this.#bytes = new Float64Array(n);
    this.#status = new Uint16Array(n);
    this.#account = new Int32Array(n);
    this.#told = new Int32Array(n);
    this.#method = new Array<string>(n);
    this.#route = new Array<string>(n);
    this.#url = new Array<string>(n);
    this.#code = new Array<string | undefined>(n);
  }

  get size(): number {
    return this.#count;
  }

  /** Keeps one request, newest; its bytes (requestBytes). The journal evicted first if it was full. */
  push(
    seq: number,
    vt: number,
    wt: number,
    data: EventData<'http.request'>,
    accountId: number | undefined,
  ): number {
    if (this.#count === this.capacity) throw new Error('RequestRing: full (the journal evicts first)');
    if (this.#count === this.#seq.length) this.#grow();
    const i = (this.#start + this.#count) % this.#seq.length;
    const bytes = requestBytes(data);
    this.#seq[i] = seq;
    this.#vt[i] = vt;
    this.#wt[i] = wt;
    this.#latency[i] = data.latency_ms;
    this.#bytes[i] = bytes;
    this.#status[i] = data.status;
    this.#account[i] = asInt32(data.account_id);
    this.#told[i] = asInt32(accountId);
    this.#method[i] = data.method;
    this.#route[i] = data.route;
    this.#url[i] = data.url;
    this.#code[i] = data.code;
    this.#count++;
    return bytes;
  }

  /** The seq of the `k`-th kept request, oldest first. */
  seqAt(k: number): number {
    return this.#seq[(this.#start + k) % this.#seq.length]!;
  }

  /** The event the `k`-th kept request was, built now. */
  eventAt(k: number): MeterEvent<'http.request'> {
    const i = (this.#start + k) % this.#seq.length;
    const account = this.#account[i]!;
    const told = this.#told[i]!;
    const data: EventData<'http.request'> = {
      method: this.#method[i]!,
      route: this.#route[i]!,
      url: this.#url[i]!,
      status: this.#status[i]!,
      latency_ms: this.#latency[i]!,
      account_id: account === NO_ACCOUNT ? null : account,
    };
    const code = this.#code[i];
    if (code !== undefined) data.code = code;
    return requestEvent(
      this.#seq[i]!,
      this.#vt[i]!,
      this.#wt[i]!,
      data,
      told === NO_ACCOUNT ? undefined : told,
    );
  }

  /** Drops the oldest; returns its seq and bytes. */
  shift(): { seq: number; bytes: number } {
    if (this.#count === 0) throw new Error('RequestRing: empty');
    const i = this.#start;
    const out = { seq: this.#seq[i]!, bytes: this.#bytes[i]! };
    // The strings go with it (the URL would otherwise live until overwritten).
    this.#url[i] = '';
    this.#code[i] = undefined;
    this.#start = (this.#start + 1) % this.#seq.length;
    this.#count--;
    return out;
  }

  /** The index of the first kept request with seq > `since` (binary search; seqs ascend). */
  firstAfter(since: number): number {
    let lo = 0;
    let hi = this.#count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.seqAt(mid) <= since) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Doubles the columns (up to the capacity), the kept requests first and in order. */
  #grow(): void {
    const was = this.#seq.length;
    const n = Math.min(this.capacity, was * 2);
    const order = (k: number) => (this.#start + k) % was;
    const f64 = (a: Float64Array) => {
      const b = new Float64Array(n);
      for (let k = 0; k < this.#count; k++) b[k] = a[order(k)]!;
      return b;
    };
    const arr = <T>(a: T[]) => {
      const b = new Array<T>(n);
      for (let k = 0; k < this.#count; k++) b[k] = a[order(k)]!;
      return b;
    };
    const status = new Uint16Array(n);
    const account = new Int32Array(n);
    const told = new Int32Array(n);
    for (let k = 0; k < this.#count; k++) {
      status[k] = this.#status[order(k)]!;
      account[k] = this.#account[order(k)]!;
      told[k] = this.#told[order(k)]!;
    }
    this.#seq = f64(this.#seq);
    this.#vt = f64(this.#vt);
    this.#wt = f64(this.#wt);
    this.#latency = f64(this.#latency);
    this.#bytes = f64(this.#bytes);
    this.#status = status;
    this.#account = account;
    this.#told = told;
    this.#method = arr(this.#method);
    this.#route = arr(this.#route);
    this.#url = arr(this.#url);
    this.#code = arr(this.#code);
    this.#start = 0;
  }
}
