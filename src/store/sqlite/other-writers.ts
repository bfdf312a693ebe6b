// The read-through caches of this store (keys, spaces, devices) hold only while nobody else writes the
// file. Several processes may (issue 11 §4: a world process and API instances on one SQLite file in WAL
// mode): SQLite's data_version changes when another connection commits, and then every cache is dropped
// before the next lookup. Own commits do not change it, so one process alone keeps its caches. Reading
// data_version costs a few µs, a real share of a cached GET: it is read at most every MAX_STALE_MS, which
// bounds how long another process's commit (a revoked key, a renamed device) may go unseen here.

/** How long another process's commit may go unseen by the caches (spec-decisions 91: revocation ≤ 1 s). */
export const MAX_STALE_MS = 50;

import type Database from 'better-sqlite3';

export class OtherWriters {
  readonly #version: Database.Statement<[], number>;
  readonly #caches: { clear(): void }[] = [];
  #seen: number;
  #checkedAt = Number.NEGATIVE_INFINITY;
  readonly #now: () => number;
  readonly #maxStaleMs: number;

  constructor(db: Database.Database, opts: { now?: () => number; maxStaleMs?: number } = {}) {
    this.#now = opts.now ?? (() => performance.now());
    this.#maxStaleMs = opts.maxStaleMs ?? MAX_STALE_MS;
    this.#version = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#seen = this.#version.get()!;
  }

  /** Registers a cache to drop when another connection has committed. */
  track<C extends { clear(): void }>(cache: C): C {
    this.#caches.push(cache);
    return cache;
  }

  /** Drops every tracked cache now: this connection replaced rows wholesale (a snapshot restored). */
  clearAll(): void {
    for (const cache of this.#caches) cache.clear();
  }

  /** Drops every tracked cache if another connection committed since the last look (≤ MAX_STALE_MS ago). */
  check(): void {
    const at = this.#now();
    if (at - this.#checkedAt < this.#maxStaleMs) return;
    this.#checkedAt = at;
    const now = this.#version.get()!;
    if (now === this.#seen) return;
    this.#seen = now;
    for (const cache of this.#caches) cache.clear();
  }
}
