// Each TEL line checked against the samples before it, one line at a time [SP-6.6]: `ts` strictly later
// than the last accepted sample [MC-7.3] and `energy` not below it [MC-7.5]. So a batch the bridge builds
// always meets the contract, and one bad line costs only itself, never its neighbours. A line that repeats
// a sample already accepted (a meter resending what no PONG confirmed, SP-5.6) is a repeat, not an error.

import type { SamplePayload } from '../../firmware-protocol/mqtt/schemas.ts';

/** Accepted samples remembered to recognise a resend [SP-5.6]: more than a meter holds unconfirmed. */
const RECENT = 1024;

export type Verdict =
  | { kind: 'accept' }
  | { kind: 'repeat' }
  | { kind: 'reject'; rule: 'MC-7.3' | 'MC-7.5'; message: string };

export class SampleOrder {
  /** ts -> energy of recently accepted samples, oldest first. */
  readonly #recent = new Map<number, number>();
  #last: { ts: number; energy: number } | null = null;

  /** Judges a sample; an accepted one becomes the new last. */
  check(sample: Pick<SamplePayload, 'ts' | 'energy'>): Verdict {
    const last = this.#last;
    if (last && sample.ts <= last.ts) {
      if (this.#recent.get(sample.ts) === sample.energy) return { kind: 'repeat' };
      return {
        kind: 'reject',
        rule: 'MC-7.3',
        message: `ts ${sample.ts} is not after the last sample's ${last.ts}`,
      };
    }
    if (last && sample.energy < last.energy) {
      return {
        kind: 'reject',
        rule: 'MC-7.5',
        message: `energy ${sample.energy} is below the last sample's ${last.energy}`,
      };
    }
    this.#last = { ts: sample.ts, energy: sample.energy };
    this.#recent.set(sample.ts, sample.energy);
    if (this.#recent.size > RECENT) this.#recent.delete(this.#recent.keys().next().value!);
    return { kind: 'accept' };
  }
}
