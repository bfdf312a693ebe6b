// The meter's telemetry outbox [MC-7.6]: samples waiting to be published, and those published but not
// yet acknowledged by the broker (QoS 1). Pure bookkeeping; link.ts does the publishing. One bound and
// one message size for every meter, virtual, replayed or bridged.

import { MAX_SAMPLES } from '../../firmware-protocol/mqtt/schemas.ts';
import type { Sample } from '../../firmware-protocol/mqtt/vocabulary.ts';

/**
 * [MC-7.6] A meter that cannot reach the broker keeps this many samples (about 70 days at 60 s) and
 * drops the oldest beyond it. The contract leaves the size to the meter; see README.md.
 */
export const OUTBOX_LIMIT = 100_000;
/**
 * Telemetry messages out unacknowledged at most, and never more than one full message's worth of
 * samples: a backlog leaves one message at a time, so no flush holds the event loop for more than one
 * encode of MAX_SAMPLES samples, while single samples may still be out eight at a time.
 */
export const MAX_MESSAGES_IN_FLIGHT = 8;

export interface OutboxOptions {
  /** Samples kept at most (default OUTBOX_LIMIT). */
  limit?: number;
  /** Samples were dropped, oldest first: `dropped` now, `droppedSoFar` since the outbox was made. */
  onOverflow?: (dropped: number, droppedSoFar: number) => void;
}

export class Outbox {
  #queue: Sample[] = [];
  /** Published, not yet acknowledged: sent again if the link drops abruptly. */
  readonly #inFlight = new Set<Sample[]>();
  #inFlightSamples = 0;
  #dropped = 0;
  #lastTs = 0;
  readonly #limit: number;
  readonly #onOverflow: OutboxOptions['onOverflow'];

  constructor(opts: OutboxOptions = {}) {
    this.#limit = opts.limit ?? OUTBOX_LIMIT;
    if (!Number.isInteger(this.#limit) || this.#limit < 1)
      throw new TypeError(`outbox limit must be a positive integer, got ${opts.limit}`);
    this.#onOverflow = opts.onOverflow;
  }

  /** Queued and unacknowledged samples. */
  get pending(): number {
    return this.#queue.length + this.#inFlightSamples;
  }
  /** Queued, not yet published. */
  get queued(): number {
    return this.#queue.length;
  }
  /** ts of the newest sample ever queued. */
  get lastTs(): number {
    return this.#lastTs;
  }

  push(sample: Sample): void {
    this.#queue.push(sample);
    if (sample.ts > this.#lastTs) this.#lastTs = sample.ts;
    if (this.#queue.length > this.#limit) {
      const excess = this.#queue.length - this.#limit;
      this.#queue.splice(0, excess);
      this.#dropped += excess;
      this.#onOverflow?.(excess, this.#dropped);
    }
  }

  /**
   * The samples of the next message, now in flight; null when nothing is queued, enough is in flight,
   * or (`partial` false) less than a full message is queued.
   */
  take(partial = true): Sample[] | null {
    if (this.#queue.length === 0 || this.#inFlight.size >= MAX_MESSAGES_IN_FLIGHT) return null;
    if (this.#inFlightSamples >= MAX_SAMPLES) return null;
    if (!partial && this.#queue.length < MAX_SAMPLES) return null;
    const batch = this.#queue.splice(0, batchLength(this.#queue, MAX_SAMPLES));
    this.#inFlightSamples += batch.length;
    this.#inFlight.add(batch);
    return batch;
  }

  /**
   * The broker answered a message: acknowledged, or failed (then its samples go back to the head of the
   * queue, before anything newer). False when the batch was already put back by requeueInFlight.
   */
  settle(batch: Sample[], err: Error | undefined): boolean {
    if (!this.#inFlight.delete(batch)) return false;
    this.#inFlightSamples -= batch.length;
    if (err) this.#queue.unshift(...batch);
    return true;
  }

  /** A message that could not be sent at all (it did not encode): forgotten. */
  discard(batch: Sample[]): void {
    if (this.#inFlight.delete(batch)) this.#inFlightSamples -= batch.length;
  }

  /** Everything forgotten (a world snapshot restored: these samples belong to the world undone). */
  clear(): void {
    this.#queue = [];
    this.#inFlight.clear();
    this.#inFlightSamples = 0;
    this.#lastTs = 0;
  }

  /** The link died: everything in flight goes back to the head of the queue, in the order it went out. */
  requeueInFlight(): void {
    const unacked = [...this.#inFlight].flat();
    this.#inFlight.clear();
    this.#inFlightSamples = 0;
    if (unacked.length > 0) this.#queue.unshift(...unacked);
  }
}

/**
 * [MC-7.2] [MC-7.3] How many samples from the head of an outbox go in the next message: at most `max`,
 * cut where `ts` does not strictly ascend (a duplicate or a late sample starts a message of its own) and
 * where the register rolled over [MC-7.10].
 */
export function batchLength(outbox: readonly Sample[], max: number): number {
  const n = Math.min(outbox.length, max);
  for (let i = 1; i < n; i++) {
    const a = outbox[i - 1]!;
    const b = outbox[i]!;
    if (b.ts <= a.ts) return i;
    // [MC-7.10] a fall at the same epoch is a rollover: the codec would refuse it inside one message.
    if (b.energy < a.energy && b.register_epoch === a.register_epoch) return i;
  }
  return n;
}
