// The views of the bus that the HTTP API serves: the journal, the live streams and (with a store) the
// durable events. Made once per service and subscribed before anything is emitted.

import type { EventBus } from './bus.ts';
import { Journal, type JournalOptions } from './journal.ts';
import type { DurableSource } from './read.ts';
import { EventStreams, type EventStreamsOptions } from './sse.ts';

export interface EventViewsOptions {
  bus: EventBus;
  journal?: Omit<JournalOptions, 'firstSeq'>;
  /** Where events older than the journal are read back from; null: memory only. */
  durable?: DurableSource | null;
  streams?: Omit<EventStreamsOptions, 'bus' | 'journal' | 'durable'>;
}

export interface EventViews {
  journal: Journal;
  durable: DurableSource | null;
  streams: EventStreams;
  /** Ends the streams and stops listening. */
  close(): void;
}

export function startEventViews(opts: EventViewsOptions): EventViews {
  const journal = new Journal({ ...opts.journal, firstSeq: opts.bus.nextSeq });
  const unsubscribe = opts.bus.subscribe((e) => journal.push(e));
  const durable = opts.durable ?? null;
  const streams = new EventStreams({
    ...opts.streams,
    bus: opts.bus,
    journal,
    durable,
    // Told as the service's own message, after the emit that overflowed the client has finished
    // (an emit from inside a subscriber would reach the later subscribers out of order).
    onDrop: (unsent) =>
      setImmediate(() =>
        opts.bus.emit('log', {
          level: 'warn',
          msg: `events: dropped a stream client that did not read (${Math.round(unsent / 1024)} KiB unsent); it may resume with Last-Event-ID`,
        }),
      ),
  });
  return {
    journal,
    durable,
    streams,
    close() {
      streams.close();
      unsubscribe();
    },
  };
}
