// What the HTTP API needs of the bus's views (GET /sim/v1/events and /events/stream): a journal query
// and the live streams. Only the shapes live here, at the bottom, so that src/sim-api can take them
// without importing src/extensions, which implements them (extensions/journal/) and sits above HTTP.

import type { EventFilter } from './filter.ts';
import type { MeterEvent } from './schemas.ts';

export interface JournalQuery {
  /** Events with seq > since, oldest first; undefined: the newest `limit`. */
  since?: number;
  filter: EventFilter;
  limit: number;
}

/** The `data` of GET /sim/v1/events (prompts/api.md), plus `durable_only_before`. */
export interface JournalAnswer {
  events: MeterEvent[];
  /** Pass as `since` next time to get what came after this answer (filtered-out events included). */
  next_since: number;
  /** Every event from this seq on is in memory. */
  oldest_seq: number;
  /** When some events were read from the store: below this seq the answer holds durable types only. */
  durable_only_before: number | null;
}

/** Where events older than the journal are read back from (extensions/durable/durable.ts). */
export interface DurableSource {
  /** Durable events with afterSeq < seq ≤ upToSeq matching `filter`: the oldest `limit`, or the newest. */
  read(q: {
    afterSeq: number;
    upToSeq: number;
    filter: EventFilter;
    limit: number;
    newest?: boolean;
  }): Promise<MeterEvent[]>;
}

/** What a stream writes to: a node ServerResponse satisfies it. */
export interface SseSink {
  write(chunk: string): boolean;
  readonly writableLength: number;
  /** The connection is gone (a client may leave before its stream opens). */
  readonly destroyed: boolean;
  end(): void;
  destroy(): void;
  once(event: 'drain' | 'close', listener: () => void): unknown;
}

/** The live streams (extensions/journal/sse.ts). */
export interface LiveStreams {
  readonly maxClients: number;
  /** Whether one more stream may open; counts the refusal when not. */
  admit(): boolean;
  /** Streams to `sink`: the events after `since` first, then live; without `since` live only. */
  open(sink: SseSink, filter: EventFilter, since?: number): void;
  /** Ends every stream (the service is stopping). */
  close(): void;
}

/** The journal and the live streams of one bus, as the HTTP API serves them. */
export interface EventViews {
  /** A journal query: memory, and before it the durable events of the store. */
  read(q: JournalQuery): Promise<JournalAnswer>;
  streams: LiveStreams;
}
