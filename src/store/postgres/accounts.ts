// Accounts and their API keys in PostgreSQL. A key is stored only as its sha256 hex digest.
//
// Several API instances share this store (issue 11 §4), so a key revoked through one must be refused
// by all within 1 s: valid keys are cached for KEY_CACHE_MS only (spec-decisions 78), never until
// revoked as in the single-writer SQLite store.

import type pg from 'pg';
import {
  type AccountRow,
  apiKeyTaken,
  hashApiKey,
  type KeyExpiryRow,
  toAccount,
  unexpired,
  VALID_KEYS_CACHED,
} from '../rows.ts';
import type { Account, KeyExpiry } from '../types.ts';
import { isUniqueViolation } from './pg-errors.ts';

/** How long a key found valid is trusted without asking the database again. */
export const KEY_CACHE_MS = 500;

export interface AccountsOptions {
  pool: pg.Pool;
  /** Wall clock for the cache's freshness (not the virtual `now` callers pass). */
  clock?: () => number;
}

export class Accounts {
  readonly #pool: pg.Pool;
  readonly #clock: () => number;
  readonly #valid = new Map<string, { account: Account; checkedAt: number } & KeyExpiry>();

  constructor(options: AccountsOptions) {
    this.#pool = options.pool;
    this.#clock = options.clock ?? Date.now;
  }

  async create(name: string, now: number): Promise<Account> {
    const { rows } = await this.#pool.query<AccountRow>(
      'INSERT INTO accounts (name, created_at) VALUES ($1, $2) RETURNING id, name, created_at',
      [name, now],
    );
    return toAccount(rows[0]!);
  }

  async get(id: number): Promise<Account | null> {
    const { rows } = await this.#pool.query<AccountRow>(
      'SELECT id, name, created_at FROM accounts WHERE id = $1',
      [id],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async addKey(accountId: number, key: string, expiry: KeyExpiry, now: number): Promise<void> {
    try {
      await this.#pool.query(
        `INSERT INTO api_keys (key_hash, account_id, created_at, expires_at, wall_expires_at)
         VALUES ($1, $2, $3, $4, $5)`,
        [hashApiKey(key), accountId, now, expiry.expiresAt, expiry.wallExpiresAt],
      );
    } catch (err) {
      if (isUniqueViolation(err)) throw apiKeyTaken();
      throw err;
    }
  }

  /** From the cache of valid keys while it is fresh (as accountForKey reads it); undefined otherwise. */
  accountForKeyNow(key: string, now: number, wallNow: number): Account | null | undefined {
    const hit = this.#valid.get(key);
    if (!hit || this.#clock() - hit.checkedAt >= KEY_CACHE_MS) return undefined;
    return unexpired(hit, now, wallNow) ? hit.account : null;
  }

  async accountForKey(key: string, now: number, wallNow: number): Promise<Account | null> {
    const hit = this.#valid.get(key);
    if (hit && this.#clock() - hit.checkedAt < KEY_CACHE_MS) {
      return unexpired(hit, now, wallNow) ? hit.account : null;
    }
    this.#valid.delete(key);
    const checkedAt = this.#clock();
    const { rows } = await this.#pool.query<AccountRow & KeyExpiryRow>(
      `SELECT a.id, a.name, a.created_at, k.expires_at, k.wall_expires_at
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)
         AND (k.wall_expires_at IS NULL OR k.wall_expires_at > $3)`,
      [hashApiKey(key), now, wallNow],
    );
    const row = rows[0];
    if (!row) return null;
    const account = Object.freeze(toAccount(row));
    if (this.#valid.size >= VALID_KEYS_CACHED) this.#valid.clear();
    this.#valid.set(key, {
      account,
      expiresAt: row.expires_at,
      wallExpiresAt: row.wall_expires_at,
      checkedAt,
    });
    return account;
  }

  async revokeKey(key: string, now: number): Promise<boolean> {
    this.#valid.delete(key);
    const result = await this.#pool.query(
      'UPDATE api_keys SET revoked_at = $1 WHERE key_hash = $2 AND revoked_at IS NULL',
      [now, hashApiKey(key)],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Forgets every cached key: the rows were replaced wholesale (a world snapshot restored). */
  forget(): void {
    this.#valid.clear();
  }
}
