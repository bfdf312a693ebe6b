export type { Principal } from './access.ts';
export { type BrokerLimits, DEFAULT_BROKER_LIMITS } from './admission.ts';
export type { Authenticate, Broker, BrokerOptions, Log } from './broker.ts';
export { startBroker } from './broker.ts';
export { DEFAULT_MAX_PACKET_BYTES } from './packet-limit.ts';
