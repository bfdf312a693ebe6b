// Accounts and their API keys. A key is stored only as its sha256 hex digest; the key itself is never
// stored or logged. Keys are 32-byte random tokens, so a fast hash is right (no brute force over 2^256).

import type Database from 'better-sqlite3';
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
import type { OtherWriters } from './other-writers.ts';
import { isUniqueViolation } from './sqlite-errors.ts';

export class Accounts {
  readonly #insertAccount: Database.Statement<[string, number], AccountRow>;
  readonly #getAccount: Database.Statement<[number], AccountRow>;
  readonly #insertKey: Database.Statement<[string, number, number, number | null, number | null]>;
  readonly #accountForKey: Database.Statement<[string, number, number], AccountRow & KeyExpiryRow>;
  /**
   * Keys found valid, with their expiry: every v2 request authenticates, and a query (plus a sha256) per
   * request cost more than the rest of a GET. Keyed by the key as presented, in memory only (the file
   * keeps only hashes). revokeKey drops the entry; a commit by another process (a key revoked through
   * another API instance) drops them all (other-writers.ts). Unknown keys are not cached (no growth
   * from guessing), and the map is bounded. An entry keeps both expiries, so a hit costs no query.
   */
  readonly #valid: Map<string, { account: Account } & KeyExpiry>;
  readonly #writers: OtherWriters;
  readonly #revokeKey: Database.Statement<[number, string]>;

  constructor(db: Database.Database, writers: OtherWriters) {
    this.#writers = writers;
    this.#valid = writers.track(new Map());
    this.#insertAccount = db.prepare(
      'INSERT INTO accounts (name, created_at) VALUES (?, ?) RETURNING id, name, created_at',
    );
    this.#getAccount = db.prepare('SELECT id, name, created_at FROM accounts WHERE id = ?');
    this.#insertKey = db.prepare(
      'INSERT INTO api_keys (key_hash, account_id, created_at, expires_at, wall_expires_at) VALUES (?, ?, ?, ?, ?)',
    );
    // A key is valid until expires_at (virtual) and wall_expires_at (wall clock), both exclusive, and
    // while not revoked.
    this.#accountForKey = db.prepare(`
      SELECT a.id, a.name, a.created_at, k.expires_at, k.wall_expires_at
      FROM api_keys k JOIN accounts a ON a.id = k.account_id
      WHERE k.key_hash = ? AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ?)
        AND (k.wall_expires_at IS NULL OR k.wall_expires_at > ?)`);
    this.#revokeKey = db.prepare(
      'UPDATE api_keys SET revoked_at = ? WHERE key_hash = ? AND revoked_at IS NULL',
    );
  }

  create(name: string, now: number): Account {
    return toAccount(this.#insertAccount.get(name, now)!);
  }

  get(id: number): Account | null {
    const row = this.#getAccount.get(id);
    return row ? toAccount(row) : null;
  }

  addKey(accountId: number, key: string, expiry: KeyExpiry, now: number): void {
    try {
      this.#insertKey.run(hashApiKey(key), accountId, now, expiry.expiresAt, expiry.wallExpiresAt);
    } catch (err) {
      if (isUniqueViolation(err)) throw apiKeyTaken();
      throw err;
    }
  }

  accountForKey(key: string, now: number, wallNow: number): Account | null {
    this.#writers.check();
    const hit = this.#valid.get(key);
    if (hit) return unexpired(hit, now, wallNow) ? hit.account : null;
    const row = this.#accountForKey.get(hashApiKey(key), now, wallNow);
    if (!row) return null;
    const account = Object.freeze(toAccount(row));
    if (this.#valid.size >= VALID_KEYS_CACHED) this.#valid.clear();
    this.#valid.set(key, { account, expiresAt: row.expires_at, wallExpiresAt: row.wall_expires_at });
    return account;
  }

  /** SQLite answers synchronously: always at once. */
  accountForKeyNow(key: string, now: number, wallNow: number): Account | null {
    return this.accountForKey(key, now, wallNow);
  }

  /** True if the key existed and was not already revoked. */
  revokeKey(key: string, now: number): boolean {
    this.#valid.delete(key);
    return this.#revokeKey.run(now, hashApiKey(key)).changes > 0;
  }
}
