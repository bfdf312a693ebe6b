// Durable events (migration 6): appended in batches by src/extensions/durable/durable.ts, read back by seq range,
// type and device, and pruned from the oldest.

import type Database from 'better-sqlite3';
import { EVENT_SELECT } from '../rows.ts';
import type { StoredEvent, StoredEventQuery } from '../types.ts';

// Filters are NULL when unset. The type list is a JSON array read with json_each (PostgreSQL:
// `type = ANY($n)` with a text[] parameter).
const WHERE = `seq > @after AND seq <= @upTo
  AND (@device IS NULL OR device_id = @device)
  AND (@types IS NULL OR type IN (SELECT value FROM json_each(@types)))`;

type Params = { after: number; upTo: number; device: string | null; types: string | null; limit: number };

export class Events {
  readonly #insert: Database.Statement<[number, string, string | null, number, string]>;
  readonly #appendAll: Database.Transaction<(events: readonly StoredEvent[]) => void>;
  readonly #oldest: Database.Statement<Params, StoredEvent>;
  readonly #newest: Database.Statement<Params, StoredEvent>;
  readonly #stats: Database.Statement<[], { count: number; maxSeq: number | null }>;
  readonly #deleteOldest: Database.Statement<[number]>;

  constructor(db: Database.Database) {
    this.#insert = db.prepare(
      'INSERT INTO events (seq, type, device_id, vt, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT (seq) DO NOTHING',
    );
    this.#appendAll = db.transaction((events) => {
      for (const e of events) this.#insert.run(e.seq, e.type, e.deviceId, e.vt, e.body);
    });
    this.#oldest = db.prepare(`${EVENT_SELECT} WHERE ${WHERE} ORDER BY seq LIMIT @limit`);
    this.#newest = db.prepare(`${EVENT_SELECT} WHERE ${WHERE} ORDER BY seq DESC LIMIT @limit`);
    this.#stats = db.prepare('SELECT count(*) AS count, max(seq) AS maxSeq FROM events');
    this.#deleteOldest = db.prepare(
      'DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY seq LIMIT ?)',
    );
  }

  append(events: readonly StoredEvent[]): void {
    this.#appendAll(events);
  }

  read(q: StoredEventQuery): StoredEvent[] {
    const params: Params = {
      after: q.afterSeq,
      upTo: q.upToSeq,
      device: q.deviceId ?? null,
      types: q.types === undefined ? null : JSON.stringify(q.types),
      limit: q.limit,
    };
    return q.newest ? this.#newest.all(params).reverse() : this.#oldest.all(params);
  }

  stats(): { count: number; maxSeq: number } {
    const r = this.#stats.get()!;
    return { count: r.count, maxSeq: r.maxSeq ?? 0 };
  }

  deleteOldest(n: number): number {
    return this.#deleteOldest.run(n).changes;
  }
}
