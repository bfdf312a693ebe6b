// Telemetry the bridge has taken from its meter and the broker has not yet acknowledged [SP-7.1, SP-7.4].
// TEL lines read in one go leave as one message of at most 1000 samples [MC-7.2]; at most 8 messages are
// in flight; a message whose publish fails is retried whole, before anything newer, so every message
// keeps its samples in ascending order [MC-7.3]. Bounded: beyond OUTBOX_LIMIT the oldest samples go.

import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';
import type { Logger } from '../serial/link.ts';

const MAX_SAMPLES_PER_MESSAGE = 1000; // [MC-7.2]
const OUTBOX_LIMIT = 100_000; // [SP-7.4] samples kept while the broker is away
const MAX_PUBLISHES_IN_FLIGHT = 8;

export interface OutboxOptions {
  /** Publishes one telemetry message; `done` gets the broker's ack or the failure. May throw. */
  publish: (samples: SamplePayload[], done: (err?: Error) => void) => void;
  /** Whether messages may go now (meter announced online). */
  ready: () => boolean;
  log: Logger;
}

export class TelemetryOutbox {
  /** Samples acknowledged by the broker. */
  published = 0;
  readonly #opts: OutboxOptions;
  #samples: SamplePayload[] = [];
  /** Whole messages whose publish failed, oldest first. */
  readonly #retry: SamplePayload[][] = [];
  #inFlight = 0;
  #soon = false;

  constructor(opts: OutboxOptions) {
    this.#opts = opts;
  }

  /** Takes a sample (already checked, SP-6.6); lines read together go out as one message. */
  push(sample: SamplePayload): void {
    this.#samples.push(sample);
    if (this.#samples.length > OUTBOX_LIMIT) this.#samples.splice(0, this.#samples.length - OUTBOX_LIMIT);
    if (this.#soon) return;
    this.#soon = true;
    setImmediate(() => {
      this.#soon = false;
      this.flush();
    });
  }

  flush(): void {
    if (!this.#opts.ready()) return;
    while (this.#inFlight < MAX_PUBLISHES_IN_FLIGHT) {
      const batch = this.#retry.shift() ?? this.#samples.splice(0, MAX_SAMPLES_PER_MESSAGE);
      if (batch.length === 0) return;
      this.#inFlight++;
      try {
        this.#opts.publish(batch, (err) => {
          this.#inFlight--;
          if (err) this.#retry.push(batch);
          else this.published += batch.length;
          this.flush();
        });
      } catch (err) {
        // Cannot happen since SP-6.6 checks each line; kept so a bug costs a message, not the process.
        this.#inFlight--;
        this.#opts.log(
          'error',
          `telemetry message of ${batch.length} samples dropped: ${(err as Error).message}`,
        );
      }
    }
  }
}
