// The journal extension: the in-memory journal of the bus (journal.ts) and the live streams
// (sse.ts), read back through the durable events before what memory holds (read.ts). The one
// extension that gives the HTTP API its views (GET /sim/v1/events and /events/stream).

import type { DurableSource, EventViews } from '../../events/views.ts';
import type { Extension, ExtensionContext } from '../extension.ts';
import { Journal } from './journal.ts';
import { readJournal } from './read.ts';
import { EventStreams } from './sse.ts';

export class JournalExtension implements Extension {
  readonly name = 'journal';
  readonly #durable: { readonly source: DurableSource | null };
  #views: EventViews | null = null;
  #unsubscribe: (() => void)[] = [];

  /** `durable`: read at the start, after the durable events extension started (it comes first). */
  constructor(durable: { readonly source: DurableSource | null }) {
    this.#durable = durable;
  }

  start(ctx: ExtensionContext): void {
    const { bus } = ctx;
    const journal = new Journal({ capacity: ctx.config.journalSize, firstSeq: bus.nextSeq });
    this.#unsubscribe.push(
      bus.subscribe((e) => journal.push(e)),
      // [EXT-7] Requests as fields, in the journal's columns.
      bus.onRequest((seq, vt, wt, data, accountId) => journal.pushRequest(seq, vt, wt, data, accountId)),
    );
    const durable = this.#durable.source;
    const streams = new EventStreams({
      ...ctx.config.streams,
      bus,
      journal,
      durable,
      metrics: ctx.metrics,
      // Told as the service's own message, after the emit that overflowed the client has finished
      // (an emit from inside a subscriber would reach the later subscribers out of order).
      onDrop: (unsent) =>
        setImmediate(() =>
          bus.emit('log', {
            level: 'warn',
            msg: `events: dropped a stream client that did not read (${Math.round(unsent / 1024)} KiB unsent); it may resume with Last-Event-ID`,
          }),
        ),
    });
    this.#views = { read: (q) => readJournal(journal, durable, q), streams };
  }

  views(): EventViews {
    if (this.#views === null) throw new Error('journal: not started');
    return this.#views;
  }

  stop(): void {
    // The streams ended already when the HTTP server closed (src/app.ts); ending them twice is nothing.
    this.#views?.streams.close();
    for (const u of this.#unsubscribe.splice(0)) u();
  }
}
