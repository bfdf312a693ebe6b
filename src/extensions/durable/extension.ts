// The durable events extension: money and meter state also go to the store (durable.ts), and seqs
// never repeat across restarts (seq-reserve.ts). First in the list [EXT-2]: it numbers the bus before
// anything is emitted, after everything any earlier run of this store handed out.

import type { DurableSource } from '../../events/views.ts';
import type { Extension, ExtensionContext } from '../extension.ts';
import { DurableEvents } from './durable.ts';
import { SeqReserve } from './seq-reserve.ts';

export class DurableEventsExtension implements Extension {
  readonly name = 'durable-events';
  #durable: DurableEvents | null = null;
  #seqs: SeqReserve | null = null;
  readonly #unsubscribe: (() => void)[] = [];

  /** Where the journal reads what it no longer holds; null on an API instance, or before the start. */
  get source(): DurableSource | null {
    return this.#durable;
  }

  async start(ctx: ExtensionContext): Promise<void> {
    // [EXT-5] The world process alone writes the shared store's events and seq mark; an API instance
    // numbers its own bus from 1 and keeps its journal in memory (spec-decisions 88).
    if (ctx.role !== 'world') return;
    const durable = await DurableEvents.open({
      store: ctx.store,
      keep: ctx.config.durableKeep,
      log: ctx.log,
      metrics: ctx.metrics,
    });
    this.#durable = durable;
    const seqs = await SeqReserve.open(ctx.store, { floor: durable.maxSeqAtOpen });
    this.#seqs = seqs;
    ctx.bus.startAt(seqs.firstSeq);
    this.#unsubscribe.push(seqs.watch(ctx.bus), durable.watch(ctx.bus));
  }

  async stop(): Promise<void> {
    // What the world's last moments emitted is written before the store closes.
    await this.#durable?.close();
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  abandon(): void {
    this.#seqs?.abandon();
    this.#durable?.abandon();
  }
}
