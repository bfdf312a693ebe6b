// Key/value settings in PostgreSQL.

import type pg from 'pg';

export class Settings {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async get(key: string): Promise<string | null> {
    const { rows } = await this.#pool.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [
      key,
    ]);
    return rows[0]?.value ?? null;
  }

  async set(key: string, value: string): Promise<void> {
    await this.#pool.query(
      'INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    );
  }
}
