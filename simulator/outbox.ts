// A meter's telemetry outbox: samples waiting to be published, and those published but not yet
// acknowledged by the broker (QoS 1). Pure bookkeeping; virtual-meter.ts does the publishing.

import type { Sample } from '../firmware-protocol/mqtt/vocabulary.ts';

/** [MC-7.2] at most this many samples in one telemetry message. */
const MAX_SAMPLES_PER_MESSAGE = 1000;
/** A meter that cannot reach the broker keeps this many samples (about 70 days at 60 s) and drops the oldest. */
const OUTBOX_LIMIT = 100_000;
/** Samples out unacknowledged at most (one full message counts for all of them). */
const MAX_IN_FLIGHT = 8;

export class TelemetryOutbox {
  #queue: Sample[] = [];
  /** Published, not yet acknowledged: sent again if the link drops abruptly (issue 12). */
  readonly #inFlight = new Set<Sample[]>();
  #inFlightCount = 0;
  #dropped = 0;
  #lastTs = 0;
  readonly #onOverflow: (droppedSoFar: number) => void;

  constructor(onOverflow: (droppedSoFar: number) => void) {
    this.#onOverflow = onOverflow;
  }

  /** Queued and unacknowledged samples. */
  get pending(): number {
    return this.#queue.length + this.#inFlightCount;
  }
  /** ts of the newest sample ever queued. */
  get lastTs(): number {
    return this.#lastTs;
  }

  push(sample: Sample): void {
    this.#queue.push(sample);
    if (sample.ts > this.#lastTs) this.#lastTs = sample.ts;
    if (this.#queue.length > OUTBOX_LIMIT) {
      const excess = this.#queue.length - OUTBOX_LIMIT;
      this.#queue.splice(0, excess);
      this.#dropped += excess;
      this.#onOverflow(this.#dropped);
    }
  }

  /**
   * The samples of the next message, now in flight; null when nothing is queued or enough is in flight.
   * [MC-7.3] a message is cut where ts stops ascending (a duplicate or late sample goes in the next one).
   */
  take(): Sample[] | null {
    if (this.#queue.length === 0 || this.#inFlightCount >= MAX_IN_FLIGHT) return null;
    const batch = this.#queue.splice(0, batchLength(this.#queue, MAX_SAMPLES_PER_MESSAGE));
    this.#inFlightCount += batch.length;
    this.#inFlight.add(batch);
    return batch;
  }

  /**
   * The broker answered a message: acknowledged, or failed (then its samples wait for the next
   * connection). False when the batch was already put back by requeueInFlight.
   */
  settle(batch: Sample[], err: Error | undefined): boolean {
    if (!this.#inFlight.delete(batch)) return false;
    this.#inFlightCount -= batch.length;
    if (err) this.#queue.unshift(...batch);
    return true;
  }

  /** Everything forgotten (a world snapshot restored: these samples belong to the world undone). */
  clear(): void {
    this.#queue = [];
    this.#inFlight.clear();
    this.#inFlightCount = 0;
    this.#lastTs = 0;
  }

  /** The link died: everything in flight goes back to the head of the queue, in the order it went out. */
  requeueInFlight(): void {
    const unacked = [...this.#inFlight].flat();
    this.#inFlight.clear();
    this.#inFlightCount = 0;
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
