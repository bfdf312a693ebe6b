// The world owner lease: one process at a time runs the world on a store (its meters, twins and ledger
// writes). A second `serve` on the same database would run every meter twice and lose money, so it is
// refused, naming the holder. The rule is here, once, for every Store; each Store only has to apply it
// atomically (SQLite: inside an IMMEDIATE transaction; PostgreSQL: under an advisory lock).

import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { OwnerClaim, Store, WorldOwner } from './types.ts';

/** Renewal period and expiry: a holder on another host that has not renewed for EXPIRY_MS is gone. */
export const OWNER_RENEW_MS = 5_000;
export const OWNER_EXPIRY_MS = 30_000;

export type ClaimDecision = { take: true; replaced: WorldOwner | null } | { take: false };

/**
 * [OWNER-2] Whether `claim` may take the lease from `current`:
 * - nobody holds it → take;
 * - a holder on this host → take only if its pid is dead (a kill -9 frees the store at once; a live
 *   holder is never taken over, however late its heartbeat: a busy event loop is not a dead process);
 * - a holder on another host → take only once its heartbeat is older than the expiry.
 */
export function ownerClaimDecision(current: WorldOwner | null, claim: OwnerClaim): ClaimDecision {
  if (current === null) return { take: true, replaced: null };
  if (current.host === claim.host) {
    const alive = current.pid === claim.pid || claim.isAlive(current.pid);
    return alive ? { take: false } : { take: true, replaced: current };
  }
  return claim.now - current.heartbeatAt > claim.expiryMs
    ? { take: true, replaced: current }
    : { take: false };
}

export function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** The store is in use by another live process: refuse to start. */
export class WorldOwnedError extends Error {
  override readonly name = 'WorldOwnedError';

  constructor(
    readonly holder: WorldOwner,
    now: number,
  ) {
    super(
      `the database is in use by another meterstack: ${describeOwner(holder, now)}. Stop it first, or use another --db`,
    );
  }
}

export function describeOwner(o: WorldOwner, now: number): string {
  const where = [o.httpUrl && `HTTP ${o.httpUrl}`, o.mqttUrl && `MQTT ${o.mqttUrl}`]
    .filter(Boolean)
    .join(', ');
  const beat = Math.max(0, Math.round((now - o.heartbeatAt) / 1000));
  return (
    `pid ${o.pid} on host ${o.host}${where ? `, ${where}` : ', not listening yet'}, ` +
    `since ${new Date(o.since).toISOString()} (last heartbeat ${beat} s ago)`
  );
}

export interface OwnerLeaseOptions {
  store: Store;
  /** Wall clock (the lease is about real processes, not the virtual clock). */
  now?: () => number;
  pid?: number;
  host?: string;
  isAlive?: (pid: number) => boolean;
  renewMs?: number;
  expiryMs?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
  /** [OWNER-3] Called once if the lease is found taken over by another process; the caller must stop. */
  onLost?: () => void;
}

/** A held lease: renewed on a timer until released. */
export class WorldOwnerLease {
  readonly #opts: OwnerLeaseOptions;
  readonly #token = randomBytes(16).toString('hex');
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;
  #released = false;

  private constructor(opts: OwnerLeaseOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
  }

  /** Takes the lease or throws WorldOwnedError naming the holder. */
  static async acquire(opts: OwnerLeaseOptions): Promise<WorldOwnerLease> {
    const lease = new WorldOwnerLease(opts);
    const now = lease.#now();
    const result = await opts.store.claimWorldOwner({
      token: lease.#token,
      pid: opts.pid ?? process.pid,
      host: opts.host ?? hostname(),
      now,
      expiryMs: opts.expiryMs ?? OWNER_EXPIRY_MS,
      isAlive: opts.isAlive ?? pidIsAlive,
    });
    if (!result.ok) throw new WorldOwnedError(result.holder, now);
    if (result.replaced) {
      opts.log?.(
        'warn',
        `world owner lease: took over from a gone holder, ${describeOwner(result.replaced, now)}`,
      );
    }
    lease.#timer = setInterval(() => void lease.#renew(), opts.renewMs ?? OWNER_RENEW_MS);
    lease.#timer.unref();
    return lease;
  }

  /** Whether this process still holds the lease: not released, not taken over (GET /readyz). */
  get held(): boolean {
    return !this.#released;
  }

  /** Records the URLs the holder answers on, for the message a refused process prints. */
  describe(urls: { httpUrl: string; mqttUrl: string }): Promise<void> {
    return this.#opts.store.describeWorldOwner(this.#token, urls);
  }

  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.#opts.store.releaseWorldOwner(this.#token);
  }

  async #renew(): Promise<void> {
    if (this.#released) return;
    try {
      if (await this.#opts.store.renewWorldOwner(this.#token, this.#now())) return;
    } catch (err) {
      this.#opts.log?.('error', `world owner lease: renewal failed: ${(err as Error).message}`);
      return;
    }
    if (this.#released) return;
    this.#released = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#opts.log?.('error', 'world owner lease: taken over by another process; this one must stop');
    this.#opts.onLost?.();
  }
}
