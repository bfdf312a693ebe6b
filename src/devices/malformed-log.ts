// [MC-9.3] [MC-9.7] Malformed meter messages, logged with the same bound as refusals (MC-9.5): the
// first five of each 10-second interval one by one, with topic, error and rule; the rest in one summary
// line per interval naming the rules broken and the devices that sent the most. A meter (or a forger
// with its login) flooding empty or broken payloads cannot fill the log.

import { BoundedLog, type Tally } from '../log/bounded.ts';
import type { Log } from './types.ts';

export class MalformedLog {
  readonly #log: Log;
  readonly #bounded: BoundedLog<string>;

  constructor(log: Log, opts: { perInterval?: number; intervalMs?: number } = {}) {
    const { perInterval = 5, intervalMs = 10_000 } = opts;
    this.#log = log;
    this.#bounded = new BoundedLog<string>({
      perInterval,
      intervalMs,
      namesPerKey: 64,
      summarize: (counted) => {
        const parts = [...counted].map(([rule, t]) => `${t.n} [${rule}] ${whose(t)}`);
        const total = [...counted.values()].reduce((a, t) => a + t.n, 0);
        log(
          'warn',
          `twins: dropped ${total} more malformed message(s) not logged one by one in the last ${intervalMs / 1000} s: ${parts.join(', ')}`,
        );
      },
    });
  }

  /** One malformed message from `deviceId` on `topic`, breaking `rule`. */
  drop(deviceId: string, topic: string, rule: string, message: string): void {
    if (this.#bounded.note(rule, deviceId))
      this.#log('warn', `twins: dropped malformed message on ${topic}: ${message} [${rule}]`);
  }

  stop(): void {
    this.#bounded.flush();
  }
}

function whose(t: Tally): string {
  const ranked = [...t.byName].sort((a, b) => b[1] - a[1]).slice(0, 3);
  const more = t.byName.size - ranked.length;
  return `(from ${ranked.map(([id, n]) => `${id}: ${n}`).join(', ')}${more > 0 ? `, ${more}${t.untracked > 0 ? '+' : ''} more device(s)` : ''})`;
}
