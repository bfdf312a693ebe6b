// [HA-6] Commands from Home Assistant, carried out: each is read (commands.ts) and refused with a log
// line and a counter, or sent through the twins exactly as the v2 API sends it (the meter acknowledges
// or refuses; money never goes this way [LEDGER-2]). Bounded: one command per meter at a time and
// `maxInFlight` in all; the log tells 5 refusals per 10 s one by one and sums up the rest.

import type { Counter, Metrics } from '../../events/metrics.ts';
import { BoundedLog } from '../../log/bounded.ts';
import type { Log } from '../../log/types.ts';
import type { ServiceHandles } from '../extension.ts';
import { type HaRefusal, parseCommand, showPayload } from './commands.ts';

/** [EXT-4] The commands' numbers. */
export const COMMAND_METRICS = {
  commands: 'meterstack_ha_commands_total',
  refused: 'meterstack_ha_commands_refused_total',
  failed: 'meterstack_ha_commands_failed_total',
} as const;

export type Refusal = HaRefusal | 'unknown_device' | 'busy';

export interface InboundOptions {
  twins: ServiceHandles['twins'];
  metrics: Metrics;
  log: Log;
  maxInFlight: number;
  /** Whether the extension announced this meter (only those take commands). */
  known(deviceId: string): boolean;
  /** A command ended, done or not: HA waits for the state topic to learn which. */
  ended(deviceId: string): void;
}

export class HaInbound {
  readonly #opts: InboundOptions;
  readonly #inFlight = new Set<string>();
  readonly #counters: Record<'commands' | 'refused' | 'failed', Counter>;
  readonly #refusals: BoundedLog<Refusal>;

  constructor(opts: InboundOptions) {
    this.#opts = opts;
    const m = opts.metrics;
    this.#counters = {
      commands: m.counter(COMMAND_METRICS.commands, 'Commands from Home Assistant sent to meters'),
      refused: m.counter(
        COMMAND_METRICS.refused,
        'Commands from Home Assistant refused before reaching a meter (bad topic or payload, unknown meter, busy)',
      ),
      failed: m.counter(
        COMMAND_METRICS.failed,
        'Commands from Home Assistant a meter did not carry out (offline, timeout, refused)',
      ),
    };
    this.#refusals = new BoundedLog<Refusal>({
      perInterval: 5,
      intervalMs: 10_000,
      namesPerKey: 8,
      summarize: (counted) => {
        const parts = [...counted].map(([reason, t]) => `${t.n} ${reason}`);
        opts.log('warn', `Home Assistant: further commands refused in 10 s: ${parts.join(', ')} [HA-6]`);
      },
    });
  }

  /** One message on a command topic. */
  handle(topic: string, payload: Buffer, retain: boolean): void {
    const parsed = parseCommand(topic, payload, retain);
    if (!parsed.ok) {
      this.#refuse(parsed.reason, topic, payload);
      return;
    }
    const { deviceId, command } = parsed;
    if (!this.#opts.known(deviceId)) {
      this.#refuse('unknown_device', topic, payload);
      return;
    }
    if (this.#inFlight.has(deviceId) || this.#inFlight.size >= this.#opts.maxInFlight) {
      this.#refuse('busy', topic, payload);
      return;
    }
    this.#inFlight.add(deviceId);
    this.#counters.commands.inc();
    const { log } = this.#opts;
    void this.#opts.twins
      .command(deviceId, command)
      .then(
        (outcome) => {
          if (outcome.ok) return;
          this.#counters.failed.inc();
          const why =
            outcome.reason === 'rejected' ? `refused (${outcome.code}): ${outcome.message}` : outcome.reason;
          log('info', `Home Assistant: ${command.op} on ${deviceId} not done: ${why}`);
        },
        (err: unknown) => {
          this.#counters.failed.inc();
          log('warn', `Home Assistant: ${command.op} on ${deviceId} failed: ${String(err)}`);
        },
      )
      .finally(() => {
        this.#inFlight.delete(deviceId);
        this.#opts.ended(deviceId);
      });
  }

  /** Tells what the bounded log only counted so far. */
  flush(): void {
    this.#refusals.flush();
  }

  #refuse(reason: Refusal, topic: string, payload: Buffer): void {
    this.#counters.refused.inc();
    const shownTopic = topic.slice(0, 128);
    if (this.#refusals.note(reason, shownTopic))
      this.#opts.log(
        'warn',
        `Home Assistant: command refused (${reason}) on ${shownTopic}: '${showPayload(payload)}' [HA-6]`,
      );
  }
}
