// The log line format of long-running commands: ISO time, level, message; info to stdout, the rest to stderr.

export type LogLevel = 'info' | 'warn' | 'error';

export function log(level: LogLevel, msg: string): void {
  const line = `${new Date().toISOString()} ${level.padEnd(5)} ${msg}\n`;
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
