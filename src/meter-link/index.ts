export type { LinkEvent } from './events.ts';
export { refusedLogin } from './events.ts';
export { type Answer, type MeterChannel, MeterLink, type MeterLinkOptions } from './link.ts';
export { batchLength, OUTBOX_LIMIT, Outbox } from './outbox.ts';
