export type { Principal } from './access.ts';
export type { Authenticate, Broker, BrokerOptions, Log } from './broker.ts';
export { startBroker } from './broker.ts';
