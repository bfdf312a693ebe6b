// Durable events in PostgreSQL: appended in batches, read back by seq range, type and device, pruned
// from the oldest. Filters are NULL when unset; the type list is a text[] (`type = ANY($n)`).

import type pg from 'pg';
import { EVENT_SELECT } from '../rows.ts';
import type { StoredEvent, StoredEventQuery } from '../types.ts';

const WHERE = `seq > $1 AND seq <= $2
  AND ($3::text IS NULL OR device_id = $3)
  AND ($4::text[] IS NULL OR type = ANY($4))`;

export class Events {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** One statement, so all or none; idempotent by seq. */
  async append(events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    await this.#pool.query(
      `INSERT INTO events (seq, type, device_id, vt, body)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[])
       ON CONFLICT (seq) DO NOTHING`,
      [
        events.map((e) => e.seq),
        events.map((e) => e.type),
        events.map((e) => e.deviceId),
        events.map((e) => e.vt),
        events.map((e) => e.body),
      ],
    );
  }

  async read(q: StoredEventQuery): Promise<StoredEvent[]> {
    const order = q.newest ? 'DESC' : 'ASC';
    const { rows } = await this.#pool.query<StoredEvent>(
      `${EVENT_SELECT} WHERE ${WHERE} ORDER BY seq ${order} LIMIT $5`,
      [q.afterSeq, q.upToSeq, q.deviceId ?? null, q.types === undefined ? null : [...q.types], q.limit],
    );
    return q.newest ? rows.reverse() : rows;
  }

  async stats(): Promise<{ count: number; maxSeq: number }> {
    const { rows } = await this.#pool.query<{ count: number; maxSeq: number }>(
      'SELECT count(*) AS count, coalesce(max(seq), 0) AS "maxSeq" FROM events',
    );
    return rows[0]!;
  }

  async deleteOldest(n: number): Promise<number> {
    const result = await this.#pool.query(
      'DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY seq LIMIT $1)',
      [n],
    );
    return result.rowCount ?? 0;
  }
}
