// The pino logger of `meterstack serve` (pino is fastify's own logger): JSON lines or pretty ones, info
// and debug to stdout, warn and error to stderr (as the CLI always did). Writes are synchronous
// (pino.destination sync, pino-pretty's formatter called in line): a line is out before the next
// event, the banner and the log keep their order, and nothing is lost at process.exit. What keeps
// this cheap is the bus logger's flood summaries, not a buffer (spec-decisions 60).

import { stripVTControlCharacters } from 'node:util';
import pino, { type DestinationStream, type Logger, type LoggerOptions as PinoOptions } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { type Redact, redactDeep, secretRedactor } from './redact.ts';
import type { LogLevel } from './types.ts';

export type LogFormat = 'pretty' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

export interface LoggerOptions {
  format: LogFormat;
  level: LogLevel;
  /** Colours in the pretty format. Default: when stdout is a terminal and NO_COLOR is not set. */
  colorize?: boolean;
  /** Where debug and info lines go. Default: stdout. */
  out?: DestinationStream;
  /** Where warn and error lines go. Default: stderr. */
  err?: DestinationStream;
  /** [SEC-1] What every line's message and fields go through. Default: redact.ts's patterns alone. */
  redact?: Redact;
}

/** [SEC-1] Every line, whoever writes it (the bus logger, the CLI's own messages), is redacted here. */
function redacting(redact: Redact): PinoOptions['hooks'] {
  return {
    logMethod(args, method) {
      const clean = args.map((a) => redactDeep(a, redact));
      method.apply(this, clean as Parameters<typeof method>);
    },
  };
}

/** pretty when stdout is a terminal (a person), json otherwise (a collector). */
export function defaultLogFormat(stdoutIsTty: boolean | undefined): LogFormat {
  return stdoutIsTty ? 'pretty' : 'json';
}

const TYPE_WIDTH = 16;

/** The pretty line after wall time and level: virtual time (IST, to the second), event type, message. */
function prettyMessage(log: Record<string, unknown>): string {
  const vt = typeof log.vt === 'string' ? `${log.vt.slice(0, 19)}+05:30 ` : '';
  // The service's own messages (`log`) have no type column: the rest name what happened.
  const type = typeof log.type === 'string' && log.type !== 'log' ? `${log.type.padEnd(TYPE_WIDTH)} ` : '';
  return `${vt}${type}${String(log.msg ?? '')}`;
}

/** prettyFactory's line, with the newline it leaves off in single-line mode. */
function withEol(line: string): string {
  return line.endsWith('\n') ? line : `${line}\n`;
}

export function createLogger(opts: LoggerOptions): Logger {
  const out = opts.out ?? pino.destination({ dest: 1, sync: true });
  const err = opts.err ?? pino.destination({ dest: 2, sync: true });
  const hooks = redacting(opts.redact ?? secretRedactor());
  if (opts.format === 'json') {
    return pino(
      {
        level: opts.level,
        base: undefined,
        hooks,
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
      },
      pino.multistream(
        [
          { level: 'debug', stream: out },
          { level: 'warn', stream: err },
        ],
        { dedupe: true },
      ),
    );
  }
  const pretty = prettyFactory({
    colorize: opts.colorize ?? (Boolean(process.stdout.isTTY) && !process.env.NO_COLOR),
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    hideObject: true,
    singleLine: true,
    messageFormat: prettyMessage,
    // Right-aligned, so that DEBUG and INFO lines start their text in the same column.
    customPrettifiers: {
      level: (_level, _key, _log, extras) => {
        const { labelColorized } = extras as { labelColorized: string };
        return `${' '.repeat(Math.max(0, 5 - stripVTControlCharacters(labelColorized).length))}${labelColorized}`;
      },
    },
  });
  const through = (dest: DestinationStream): DestinationStream => ({
    write: (line: string) => dest.write(withEol(pretty(line))),
  });
  return pino(
    { level: opts.level, base: undefined, hooks },
    pino.multistream(
      [
        { level: 'debug', stream: through(out) },
        { level: 'warn', stream: through(err) },
      ],
      { dedupe: true },
    ),
  );
}
