// The one shape of a log function, used by every part that logs (world, twins, broker, HTTP, events).

/**
 * A log line. `meta.event`: the same fact also goes onto the event bus as its own typed event (a
 * refusal), so the line must not be emitted a second time as a `log` event.
 */
export type Log = (level: 'info' | 'warn' | 'error', msg: string, meta?: { event?: boolean }) => void;
