// The world owner lease in PostgreSQL: the same one-row table as SQLite, claimed under a transaction
// advisory lock so two processes starting at once cannot both take it. The rule itself is
// ownerClaimDecision (../world-owner.ts).

import type pg from 'pg';
import { OWNER_SELECT as SELECT } from '../rows.ts';
import type { OwnerClaim, OwnerClaimResult, WorldOwner } from '../types.ts';
import { ownerClaimDecision } from '../world-owner.ts';
import { advisoryXactLock, inTransaction, LOCK, type Queryable } from './db.ts';

export class WorldOwnerRow {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  current(db: Queryable = this.#pool): Promise<WorldOwner | null> {
    return db.query<WorldOwner>(SELECT).then((r) => r.rows[0] ?? null);
  }

  claim(claim: OwnerClaim): Promise<OwnerClaimResult> {
    return inTransaction(this.#pool, async (c) => {
      await advisoryXactLock(c, LOCK.worldOwner);
      const current = await this.current(c);
      const decision = ownerClaimDecision(current, claim);
      if (!decision.take) return { ok: false, holder: current! };
      await c.query(
        `INSERT INTO world_owner (id, token, pid, host, since, heartbeat_at, http_url, mqtt_url)
         VALUES (1, $1, $2, $3, $4, $4, NULL, NULL)
         ON CONFLICT (id) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
           since = excluded.since, heartbeat_at = excluded.heartbeat_at, http_url = NULL, mqtt_url = NULL`,
        [claim.token, claim.pid, claim.host, claim.now],
      );
      return { ok: true, replaced: decision.replaced };
    });
  }

  async renew(token: string, now: number): Promise<boolean> {
    const r = await this.#pool.query('UPDATE world_owner SET heartbeat_at = $1 WHERE id = 1 AND token = $2', [
      now,
      token,
    ]);
    return r.rowCount === 1;
  }

  async describe(token: string, urls: { httpUrl: string; mqttUrl: string }): Promise<void> {
    await this.#pool.query(
      'UPDATE world_owner SET http_url = $1, mqtt_url = $2 WHERE id = 1 AND token = $3',
      [urls.httpUrl, urls.mqttUrl, token],
    );
  }

  async release(token: string): Promise<void> {
    await this.#pool.query('DELETE FROM world_owner WHERE id = 1 AND token = $1', [token]);
  }
}
