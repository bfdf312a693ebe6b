// The logger extension: the bus logger (bus-logger.ts) writing every event at or above the level as a
// pino line, started from the same list whichever way the service starts [EXT-2]. Before the bus
// exists, and when the bus is off (--no-events), the service's messages are plain lines written here
// directly (`log`); once it listens they come back as `log` events and are written once (issue 9 §2).

import pino, { type Logger } from 'pino';
import type { EventBus } from '../../events/bus.ts';
import type { Log } from '../../log/types.ts';
import type { Extension, ExtensionContext } from '../extension.ts';
import { BusLogger, type BusLoggerOptions, startSummary } from './bus-logger.ts';

type Level = Parameters<Log>[0];

export interface LoggerExtensionOptions extends Partial<Omit<BusLoggerOptions, 'logger'>> {
  /** Where lines go (src/log/logger.ts). Default: none (level silent), as startMeterstack() by default. */
  logger?: Logger;
}

export class LoggerExtension implements Extension {
  readonly name = 'logger';
  readonly #logger: Logger;
  readonly #options: Partial<Omit<BusLoggerOptions, 'logger'>>;
  #bus: EventBus | null = null;
  #busLogger: BusLogger | null = null;
  #stopped = false;

  constructor(opts: LoggerExtensionOptions = {}) {
    const { logger, ...options } = opts;
    this.#logger = logger ?? pino({ level: 'silent' });
    this.#options = options;
  }

  start(ctx: ExtensionContext): void {
    this.#bus = ctx.bus;
    // Silent: nothing to write, so not even a subscriber (an idle one costs each emit a call).
    if (!ctx.bus.enabled || this.#logger.level === 'silent') return;
    this.#busLogger = new BusLogger(ctx.bus, { ...this.#options, logger: this.#logger });
  }

  /** Tells what floods counted so far, then stops listening. */
  stop(): void {
    this.#stopped = true;
    this.#busLogger?.close();
  }

  /**
   * The service's `log` (ServiceConfig.log): a plain line until this extension listens to the bus; from
   * then on nothing, as the service emits the same message as a `log` event, which is written instead.
   */
  readonly log: Log = (level, msg) => {
    if (this.#busLogger === null) this.#logger[level]({ type: 'log' }, msg);
  };

  /**
   * The service is up and has said so (`serve`'s banner): ends a quiet start (`quietStart`) with one
   * info line for the meters whose lines it kept at debug (`7 meters online, 1 offline: MTR-B203`).
   */
  started(): void {
    const tally = this.#busLogger?.started();
    const line = tally ? startSummary(tally) : '';
    if (line) this.say('info', line);
  }

  /**
   * A message of whoever runs the service (the CLI's signal lines): a `log` event on the bus, written
   * as every other; after the stop still as that event's line (seq, virtual time), so the last line of
   * a run looks like the rest; with no bus, or one that is off, a plain line.
   */
  say(level: Level, msg: string): void {
    const e = this.#bus?.emit('log', { level, msg }) ?? null;
    if (e === null) this.#logger[level]({ type: 'log' }, msg);
    else if (this.#stopped) this.#busLogger?.write(e);
  }
}
