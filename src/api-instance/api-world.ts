// An API instance's world (issue 11 §4): the store, twins that mirror every meter from the broker, a
// clock that follows the world process's, and no meters. /sim/v1 forwards whatever needs meters to the
// world process before it gets here, so those methods only say so if ever reached.

import type { TwinRegistry } from '../devices/twins.ts';
import type { EventBus } from '../events/bus.ts';
import type { Log } from '../log/types.ts';
import type { Store } from '../store/types.ts';
import { Accounts } from '../world/accounts.ts';
import type { ClockView, ServiceWorld } from '../world/face.ts';

export interface ApiWorldOptions {
  store: Store;
  twins: TwinRegistry;
  clock: ClockView;
  bus: EventBus;
  log: Log;
  mqttUrl: string;
}

function inTheWorld(what: string): never {
  throw new Error(`${what} runs in the world process: an API instance forwards it (sim/forward.ts)`);
}

export class ApiWorld implements ServiceWorld {
  readonly store: Store;
  readonly twins: TwinRegistry;
  readonly clock: ClockView;
  readonly bus: EventBus;
  readonly log: Log;
  readonly mqttUrl: string;
  readonly fleet = { meters: () => [].values() };
  readonly workers = null;
  readonly snapshots = null;
  readonly reconciliation = { checkedAtStart: 0, disagreementsAtStart: 0 };
  readonly #accounts: Accounts;

  constructor(opts: ApiWorldOptions) {
    this.store = opts.store;
    this.twins = opts.twins;
    this.clock = opts.clock;
    this.bus = opts.bus;
    this.log = opts.log;
    this.mqttUrl = opts.mqttUrl;
    this.#accounts = new Accounts({ store: opts.store, now: () => opts.clock.now() });
  }

  createAccount: ServiceWorld['createAccount'] = (name, apiKey) => this.#accounts.createAccount(name, apiKey);
  createApiKey: ServiceWorld['createApiKey'] = (accountId, expiresAt, apiKey) =>
    this.#accounts.createApiKey(accountId, expiresAt, apiKey);
  createSpace: ServiceWorld['createSpace'] = (input) => this.#accounts.createSpace(input);

  meter(): undefined {
    return undefined;
  }

  backfills(): [] {
    return [];
  }

  /** [MC-11.3] Advances run in the world process, which answers for its external meters. */
  wallClockOnline(): string[] {
    return [];
  }

  provisionDevice: ServiceWorld['provisionDevice'] = async () => inTheWorld('provisioning a device');
  setOnline: ServiceWorld['setOnline'] = async () => inTheWorld('plugging a meter');
  recharge: ServiceWorld['recharge'] = async () => inTheWorld('a recharge');
  replaceMeter: ServiceWorld['replaceMeter'] = async () => inTheWorld('replacing a meter');
  checkLedger: ServiceWorld['checkLedger'] = async () => inTheWorld('the ledger check');
  rechargeExternal: ServiceWorld['rechargeExternal'] = async () => inTheWorld('a recharge');
  checkExternalLedger: ServiceWorld['checkExternalLedger'] = async () => inTheWorld('the ledger check');
  advance: ServiceWorld['advance'] = async () => inTheWorld('a clock advance');
  setSpeed: ServiceWorld['setSpeed'] = async () => inTheWorld('a clock speed change');
}
