// The read-through caches of this store (keys, spaces, devices) hold only while nobody else writes the
// file. Several processes may (issue 11 §4: a world process and API instances on one SQLite file in WAL
// mode): SQLite's data_version changes when another connection commits, and then every cache is dropped
// before the next lookup. Own commits do not change it, so one process alone keeps its caches.

import type Database from 'better-sqlite3';

export class OtherWriters {
  readonly #version: Database.Statement<[], number>;
  readonly #caches: { clear(): void }[] = [];
  #seen: number;

  constructor(db: Database.Database) {
    this.#version = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.#seen = this.#version.get()!;
  }

  /** Registers a cache to drop when another connection has committed. */
  track<C extends { clear(): void }>(cache: C): C {
    this.#caches.push(cache);
    return cache;
  }

  /** Drops every tracked cache if another connection committed since the last call (a few µs). */
  check(): void {
    const now = this.#version.get()!;
    if (now === this.#seen) return;
    this.#seen = now;
    for (const cache of this.#caches) cache.clear();
  }
}
