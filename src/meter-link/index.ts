export { brokerUrlProblem } from '../mqtt/connect.ts';
export { type Answer, Commands } from './commands.ts';
export { type LinkEvent, refusedLogin } from './events.ts';
export { type MeterChannel, MeterLink, type MeterLinkOptions } from './link.ts';
export { batchLength, MAX_MESSAGES_IN_FLIGHT, OUTBOX_LIMIT, Outbox } from './outbox.ts';
export { type BackoffOptions, BRIDGE_BACKOFF } from './reconnect.ts';
/** [MC-12.2] How long a bridge waits for the service announcement after connecting. */
export const SERVICE_WAIT_MS = 3_000;
