// Live event streams (GET /sim/v1/events/stream): Server-Sent Events frames to every open client,
// after a replay from the journal. The emitter never waits for a client: a frame is handed to the
// socket's buffer, and a client whose unsent bytes are past a bound when a frame is due is dropped and
// counted (issue 9 §3). Replay goes page by page, waiting for the socket to drain between pages, and switches
// to live in the same tick as its last page, so a resumed client gets no gap and no duplicate.

import { type EventBus, requestEvent } from '../../events/bus.ts';
import { type EventFilter, matches } from '../../events/filter.ts';
import { type Counter, Metrics } from '../../events/metrics.ts';
import type { MeterEvent } from '../../events/schemas.ts';
import type { DurableSource, LiveStreams, SseSink } from '../../events/views.ts';
import type { Journal } from './journal.ts';
import { readJournal } from './read.ts';

/** [EXT-4] The streams' numbers in the service's metrics (were the public `stats`). */
export const STREAM_METRICS = {
  open: 'meterstack_event_streams_open',
  dropped: 'meterstack_event_streams_dropped_total',
  refused: 'meterstack_event_streams_refused_total',
} as const;

export interface EventStreamsOptions {
  bus: Pick<EventBus, 'subscribe' | 'onRequest'>;
  journal: Journal;
  durable?: DurableSource | null;
  /** Streams open at once at most. Default 32. */
  maxClients?: number;
  /** A client whose unsent bytes are past this when a frame is due is dropped. Default 1 MiB. */
  maxBufferBytes?: number;
  /** A `: ping` comment this often. Default 15 s. */
  heartbeatMs?: number;
  /** Events per replay page. Default 500. */
  replayPage?: number;
  /** Told when a client is dropped for not reading, with its unsent bytes. */
  onDrop?: (unsentBytes: number) => void;
  /** Where open, dropped and refused streams are counted (STREAM_METRICS). Default: a registry of its own. */
  metrics?: Metrics;
}

interface Client {
  sink: SseSink;
  filter: EventFilter;
  /** Live frames go out only once the replay is done; before that the journal has them. */
  live: boolean;
  lastSent: number;
  gone: boolean;
}

export function sseFrame(e: MeterEvent): string {
  return `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
}

export class EventStreams implements LiveStreams {
  readonly maxClients: number;
  readonly maxBufferBytes: number;
  readonly #journal: Journal;
  readonly #durable: DurableSource | null;
  readonly #replayPage: number;
  readonly #onDrop: (unsentBytes: number) => void;
  readonly #clients = new Set<Client>();
  readonly #unsubscribe: () => void;
  readonly #heartbeat: NodeJS.Timeout;
  readonly #dropped: Counter;
  readonly #refused: Counter;
  #closed = false;

  constructor(opts: EventStreamsOptions) {
    const { maxClients = 32, maxBufferBytes = 1024 * 1024, heartbeatMs = 15_000, replayPage = 500 } = opts;
    for (const [name, v] of Object.entries({ maxClients, maxBufferBytes, heartbeatMs, replayPage })) {
      if (!Number.isInteger(v) || v < 1)
        throw new TypeError(`EventStreams: ${name} must be a positive integer, not ${v}`);
    }
    this.maxClients = maxClients;
    this.maxBufferBytes = maxBufferBytes;
    this.#journal = opts.journal;
    this.#durable = opts.durable ?? null;
    this.#replayPage = replayPage;
    this.#onDrop = opts.onDrop ?? (() => {});
    const metrics = opts.metrics ?? new Metrics();
    metrics.gauge(STREAM_METRICS.open, 'Event streams (SSE) open now', () => this.#clients.size);
    this.#dropped = metrics.counter(STREAM_METRICS.dropped, 'Event stream clients dropped for not reading');
    this.#refused = metrics.counter(STREAM_METRICS.refused, 'Event streams refused: the most were open');
    const onEvent = opts.bus.subscribe((e) => this.#onEvent(e));
    // [EXT-7] A request becomes an event only while a stream is open to take it.
    const onRequest = opts.bus.onRequest((seq, vt, wt, data, accountId) => {
      if (this.#clients.size > 0) this.#onEvent(requestEvent(seq, vt, wt, data, accountId));
    });
    this.#unsubscribe = () => {
      onEvent();
      onRequest();
    };
    this.#heartbeat = setInterval(() => this.#ping(), heartbeatMs);
    this.#heartbeat.unref();
  }

  /** Whether one more stream may open; counts the refusal when not. */
  admit(): boolean {
    if (!this.#closed && this.#clients.size < this.maxClients) return true;
    this.#refused.inc();
    return false;
  }

  /**
   * Streams to `sink` from now on: the events after `since` first (from the journal, and the store
   * before it), then live. Without `since` it starts live. The caller has written the headers.
   */
  open(sink: SseSink, filter: EventFilter, since?: number): void {
    // Gone already: its 'close' has passed and would never free the place.
    if (sink.destroyed) return;
    const client: Client = { sink, filter, live: since === undefined, lastSent: since ?? 0, gone: false };
    this.#clients.add(client);
    sink.once('close', () => this.#remove(client));
    if (since !== undefined) {
      void this.#replay(client).catch(() => {
        // The store failed to answer: end the stream; the client resumes from what it got.
        this.#remove(client);
        sink.end();
      });
    }
  }

  /** Ends every stream (the service is stopping) and stops listening to the bus. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    clearInterval(this.#heartbeat);
    for (const c of this.#clients) {
      c.gone = true;
      c.sink.end();
    }
    this.#clients.clear();
  }

  #onEvent(e: MeterEvent): void {
    if (this.#clients.size === 0) return;
    let frame: string | null = null;
    for (const c of this.#clients) {
      if (!c.live || e.seq <= c.lastSent || !matches(c.filter, e)) continue;
      frame ??= sseFrame(e);
      this.#send(c, frame);
      c.lastSent = e.seq;
    }
  }

  async #replay(c: Client): Promise<void> {
    const half = this.maxBufferBytes / 2;
    for (;;) {
      if (c.gone) return;
      if (this.#durable !== null && c.lastSent < this.#journal.oldestSeq - 1) {
        // Older than memory: the store's durable events, a page at a time.
        const page = await readJournal(this.#journal, this.#durable, {
          since: c.lastSent,
          filter: c.filter,
          limit: this.#replayPage,
        });
        if (c.gone) return;
        const n = this.#sendSome(c, page.events, half);
        // Not live yet even if caught up: an event may be emitted between that answer and this line,
        // so a later turn reads memory and switches in the same tick as its read.
        c.lastSent = n === page.events.length ? page.next_since : (page.events[n - 1]?.seq ?? c.lastSent);
      } else {
        const events = this.#journal.after(c.lastSent, c.filter, this.#replayPage);
        const n = this.#sendSome(c, events, half);
        if (n === events.length && events.length < this.#replayPage) {
          // Caught up, in the same tick as the read: the next event emitted goes out live.
          c.lastSent = Math.max(c.lastSent, this.#journal.lastSeq);
          c.live = true;
          return;
        }
        if (n > 0) c.lastSent = events[n - 1]!.seq;
      }
      if (c.sink.writableLength > half) await drained(c.sink);
    }
  }

  /** Writes events until the client holds `upTo` unsent bytes; returns how many went. */
  #sendSome(c: Client, events: MeterEvent[], upTo: number): number {
    let n = 0;
    while (n < events.length && !c.gone && c.sink.writableLength <= upTo)
      this.#send(c, sseFrame(events[n++]!));
    return n;
  }

  #send(c: Client, frame: string): void {
    if (c.gone) return;
    // Dropped for what it left unread before this frame, not for this frame's size: one frame larger
    // than the bound (a telemetry summary of ~8,000 meters or more) still reaches a client that reads.
    // A client holds at most the bound plus one frame.
    if (c.sink.writableLength > this.maxBufferBytes) {
      this.#drop(c);
      return;
    }
    c.sink.write(frame);
  }

  #ping(): void {
    for (const c of this.#clients) if (c.live) this.#send(c, ': ping\n\n');
  }

  #drop(c: Client): void {
    if (c.gone) return;
    this.#dropped.inc();
    this.#remove(c);
    const unsent = c.sink.writableLength;
    c.sink.destroy();
    this.#onDrop(unsent);
  }

  #remove(c: Client): void {
    c.gone = true;
    this.#clients.delete(c);
  }
}

function drained(sink: SseSink): Promise<void> {
  return new Promise((resolve) => {
    sink.once('drain', resolve);
    sink.once('close', resolve);
  });
}
