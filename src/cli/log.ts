// The log line format of long-running commands: ISO time, level, message; info to stdout, the rest to stderr.

import { secretRedactor } from '../log/redact.ts';

export type LogLevel = 'info' | 'warn' | 'error';

/** [SEC-1] The same redaction as serve's lines: a broker URL's password, a key, never printed. */
const redact = secretRedactor();

export function log(level: LogLevel, msg: string): void {
  const line = `${new Date().toISOString()} ${level.padEnd(5)} ${redact(msg)}\n`;
  (level === 'info' ? process.stdout : process.stderr).write(line);
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
