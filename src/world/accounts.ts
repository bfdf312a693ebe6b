// Accounts, API keys and spaces: store-only operations, the same in the world process and in an API
// instance (issue 11 §4), which runs them locally instead of forwarding them to the world.

import type { Account, KeyExpiry, Space, Store, Udfs } from '../store/types.ts';
import { newToken } from './secrets.ts';
import { WorldError } from './types.ts';

export interface AccountsOptions {
  store: Store;
  /** The virtual clock's now. */
  now: () => number;
}

export class Accounts {
  readonly #store: Store;
  readonly #now: () => number;

  constructor(opts: AccountsOptions) {
    this.#store = opts.store;
    this.#now = opts.now;
  }

  async createAccount(name: string, apiKey?: string): Promise<{ account: Account; apiKey: string }> {
    const now = this.#now();
    const account = await this.#store.createAccount(name, now);
    const key = apiKey ?? newToken('msk');
    await this.#store.addApiKey(account.id, key, null, now);
    return { account, apiKey: key };
  }

  /** `expiry`: a number (or null) is the virtual expiry alone. */
  async createApiKey(accountId: number, expiry: number | null | KeyExpiry, apiKey?: string): Promise<string> {
    if (!(await this.#store.getAccount(accountId)))
      throw new WorldError('not_found', `account ${accountId} not found`);
    const key = apiKey ?? newToken('msk');
    await this.#store.addApiKey(accountId, key, expiry, this.#now());
    return key;
  }

  async createSpace(
    input: { accountId: number; name: string; description?: string } & Partial<Udfs>,
  ): Promise<Space> {
    if (!(await this.#store.getAccount(input.accountId)))
      throw new WorldError('not_found', `account ${input.accountId} not found`);
    return this.#store.createSpace({
      accountId: input.accountId,
      name: input.name,
      description: input.description ?? '',
      udf1: input.udf1 ?? null,
      udf2: input.udf2 ?? null,
      udf3: input.udf3 ?? null,
      udf4: input.udf4 ?? null,
      udf5: input.udf5 ?? null,
    });
  }
}
