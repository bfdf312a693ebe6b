// The one shape of a log function, used by every part that logs (world, twins, broker, HTTP, events),
// and the levels a line may have.

/**
 * A log line. `meta.event`: the same fact also goes onto the event bus as its own typed event (a
 * refusal), so the line must not be emitted a second time as a `log` event.
 */
export type Log = (level: 'info' | 'warn' | 'error', msg: string, meta?: { event?: boolean }) => void;

/** A line's level, lowest first: what `--log-level` chooses from. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
