export { type Answer, Commands } from './commands.ts';
export { type LinkEvent, refusedLogin } from './events.ts';
export { type MeterChannel, MeterLink, type MeterLinkOptions } from './link.ts';
export { batchLength, MAX_MESSAGES_IN_FLIGHT, OUTBOX_LIMIT, Outbox } from './outbox.ts';
export { brokerUrlProblem } from '../mqtt/connect.ts';
