// Sequence numbers that never repeat across restarts, a crash included (issue 9 §3), as a database
// sequence cache does: the store records the highest seq this process may hand out (a block ahead),
// and the next process starts after it. The bus counts in memory; this only moves the mark ahead when
// the bus has used half of the block, so it costs one setting write per half block of events.

import type { EventBus } from '../../events/bus.ts';
import { SEQ_SETTING } from '../../events/settings.ts';
import type { Store } from '../../store/types.ts';

export { SEQ_SETTING };
export const DEFAULT_SEQ_BLOCK = 10_000;

type SeqStore = Pick<Store, 'getSetting' | 'setSetting'>;

export class SeqReserve {
  /** The first seq this process hands out: after everything any earlier process could have. */
  readonly firstSeq: number;
  readonly block: number;
  readonly #store: SeqStore;
  /** The highest mark the store confirmed. */
  #reserved: number;
  /** The highest mark asked for (confirmed or not). */
  #asked: number;
  #stopped = false;

  private constructor(store: SeqStore, firstSeq: number, reserved: number, block: number) {
    this.#store = store;
    this.firstSeq = firstSeq;
    this.#reserved = reserved;
    this.#asked = reserved;
    this.block = block;
  }

  /**
   * Reserves the first block. `floor`: a seq known to be used (the newest durable event), in case
   * the mark was lost.
   */
  static async open(store: SeqStore, opts: { block?: number; floor?: number } = {}): Promise<SeqReserve> {
    const block = opts.block ?? DEFAULT_SEQ_BLOCK;
    if (!Number.isInteger(block) || block < 2)
      throw new TypeError(`SeqReserve: block must be an integer ≥ 2, not ${block}`);
    const raw = await store.getSetting(SEQ_SETTING);
    const mark = raw === null ? 0 : Number(raw);
    if (!Number.isSafeInteger(mark) || mark < 0)
      throw new Error(`setting ${SEQ_SETTING} is not a sequence number: '${raw}'`);
    const firstSeq = Math.max(mark, opts.floor ?? 0) + 1;
    const reserved = firstSeq + block - 1;
    // Written before the bus exists: nothing is handed out that is not reserved.
    await store.setSetting(SEQ_SETTING, String(reserved));
    return new SeqReserve(store, firstSeq, reserved, block);
  }

  /** The highest seq reserved so far. */
  get reserved(): number {
    return this.#reserved;
  }

  /** Moves the mark ahead as `bus` hands out seqs; returns the unsubscribe function. */
  watch(bus: Pick<EventBus, 'subscribe' | 'onRequest'>): () => void {
    const events = bus.subscribe((e) => {
      if (e.seq > this.#asked - this.block / 2) this.#extend(e.seq);
    });
    // [EXT-7] Answered requests take seqs too, without an event.
    const requests = bus.onRequest((seq) => {
      if (seq > this.#asked - this.block / 2) this.#extend(seq);
    });
    return () => {
      events();
      requests();
    };
  }

  /** Another process took the store (world owner lease): write nothing more. */
  abandon(): void {
    this.#stopped = true;
  }

  #extend(seq: number): void {
    if (this.#stopped) return;
    const target = seq + this.block;
    this.#asked = target;
    // SQLite (better-sqlite3) commits inside this call, before the next event is emitted; a networked
    // store commits within its round trip, far less than the half block of events left. Marks only
    // grow, and one connection applies them in the order asked.
    this.#store.setSetting(SEQ_SETTING, String(target)).then(
      () => {
        this.#reserved = Math.max(this.#reserved, target);
      },
      () => {
        // Asked again at the next event.
        if (this.#asked === target) this.#asked = this.#reserved;
      },
    );
  }
}
