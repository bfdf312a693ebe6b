// The world owner lease in SQLite: one row, claimed inside an IMMEDIATE transaction so two processes
// starting at once cannot both take it. The rule itself is ownerClaimDecision (../world-owner.ts).

import type Database from 'better-sqlite3';
import { OWNER_SELECT } from '../rows.ts';
import type { OwnerClaim, OwnerClaimResult, WorldOwner } from '../types.ts';
import { ownerClaimDecision } from '../world-owner.ts';

export class WorldOwnerRow {
  readonly #get: Database.Statement<[], WorldOwner>;
  readonly #put: Database.Statement<[string, number, string, number, number]>;
  readonly #renew: Database.Statement<[number, string]>;
  readonly #describe: Database.Statement<[string, string, string]>;
  readonly #release: Database.Statement<[string]>;
  readonly #claim: Database.Transaction<(claim: OwnerClaim) => OwnerClaimResult>;

  constructor(db: Database.Database) {
    this.#get = db.prepare(OWNER_SELECT);
    this.#put = db.prepare(`
      INSERT INTO world_owner (id, token, pid, host, since, heartbeat_at, http_url, mqtt_url)
      VALUES (1, ?, ?, ?, ?, ?, NULL, NULL)
      ON CONFLICT (id) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
        since = excluded.since, heartbeat_at = excluded.heartbeat_at, http_url = NULL, mqtt_url = NULL`);
    this.#renew = db.prepare('UPDATE world_owner SET heartbeat_at = ? WHERE id = 1 AND token = ?');
    this.#describe = db.prepare(
      'UPDATE world_owner SET http_url = ?, mqtt_url = ? WHERE id = 1 AND token = ?',
    );
    this.#release = db.prepare('DELETE FROM world_owner WHERE id = 1 AND token = ?');
    this.#claim = db.transaction((claim) => {
      const current = this.current();
      const decision = ownerClaimDecision(current, claim);
      if (!decision.take) return { ok: false, holder: current! };
      this.#put.run(claim.token, claim.pid, claim.host, claim.now, claim.now);
      return { ok: true, replaced: decision.replaced };
    });
  }

  /** The holder, if any: API-only instances find the world's HTTP and MQTT URLs here (issue 11). */
  current(): WorldOwner | null {
    return this.#get.get() ?? null;
  }

  claim(claim: OwnerClaim): OwnerClaimResult {
    return this.#claim.immediate(claim);
  }

  renew(token: string, now: number): boolean {
    return this.#renew.run(now, token).changes === 1;
  }

  describe(token: string, urls: { httpUrl: string; mqttUrl: string }): void {
    this.#describe.run(urls.httpUrl, urls.mqttUrl, token);
  }

  release(token: string): void {
    this.#release.run(token);
  }
}
