// Key/value settings.

import type Database from 'better-sqlite3';

export class Settings {
  readonly #get: Database.Statement<[string], { value: string }>;
  readonly #set: Database.Statement<[string, string]>;

  constructor(db: Database.Database) {
    this.#get = db.prepare('SELECT value FROM settings WHERE key = ?');
    this.#set = db.prepare(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
  }

  get(key: string): string | null {
    return this.#get.get(key)?.value ?? null;
  }

  set(key: string, value: string): void {
    this.#set.run(key, value);
  }
}
