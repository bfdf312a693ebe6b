// The log line format of long-running commands: ISO time, level, message; info and debug to stdout, the
// rest to stderr. `--log-level` (`--verbose` = debug) sets the lowest level written (setLogLevel).

import { secretRedactor } from '../log/redact.ts';
import { LOG_LEVELS, type LogLevel } from '../log/types.ts';

export type { LogLevel };

/** [SEC-1] The same redaction as serve's lines: a broker URL's password, a key, never printed. */
const redact = secretRedactor();

let lowest = LOG_LEVELS.indexOf('info');

/** Lines below `level` are left out from now on. */
export function setLogLevel(level: LogLevel): void {
  lowest = LOG_LEVELS.indexOf(level);
}

export function log(level: LogLevel, msg: string): void {
  if (LOG_LEVELS.indexOf(level) < lowest) return;
  const line = `${new Date().toISOString()} ${level.padEnd(5)} ${redact(msg)}\n`;
  (level === 'info' || level === 'debug' ? process.stdout : process.stderr).write(line);
}

/**
 * `--log-level <level>` and `--verbose` (= debug), as `bridge` and `meter` take them: the level, or the
 * reason it is not one (a usage error).
 */
export function logLevelOf(values: {
  'log-level'?: unknown;
  verbose?: unknown;
}): LogLevel | { error: string } {
  const given = values['log-level'];
  if (given === undefined) return values.verbose ? 'debug' : 'info';
  if (!LOG_LEVELS.includes(given as LogLevel)) {
    return { error: `--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${String(given)}` };
  }
  if (values.verbose && given !== 'debug') return { error: `--verbose is --log-level debug, not ${given}` };
  return given as LogLevel;
}

/** Sets the level `--log-level`/`--verbose` give; false when they are a usage error, told through `error`. */
export function applyLogLevel(
  values: { 'log-level'?: unknown; verbose?: unknown },
  error: (msg: string) => void,
): boolean {
  const level = logLevelOf(values);
  if (typeof level === 'object') {
    error(level.error);
    return false;
  }
  setLogLevel(level);
  return true;
}

export const LOG_LEVEL_OPTIONS = {
  'log-level': { type: 'string' },
  verbose: { type: 'boolean', short: 'v' },
} as const;

/** The help lines of the two flags, their text starting at column `column` as the command's others. */
export function logLevelHelp(column: number): string {
  return (
    `${'  --log-level <level>'.padEnd(column)}debug|info|warn|error (default info); debug: every serial line\n` +
    `${'  --verbose'.padEnd(column)}the same as --log-level debug\n`
  );
}

/** Runs `stop` once on SIGINT or SIGTERM, then lets the process end. */
export function onSignals(stop: (signal: string) => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void stop(signal).finally(() => process.exit(process.exitCode ?? 0));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}
