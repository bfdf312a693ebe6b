// Who hosts which meters: one lease per fleet worker name, kept by the world process alone (the only
// writer), renewed by heartbeats. Pure bookkeeping on wall time passed in; no I/O here.

/** Wall ms without a heartbeat after which a worker is dead (spec-decisions 83). */
export const DEAD_AFTER_MS = 15_000;
/** Wall ms a worker's sync stream may stay closed (a reconnect) before the worker counts as dead. */
export const SYNC_GRACE_MS = 2_000;

export interface WorkerLease {
  name: string;
  /** Random; every later call of the worker names it, so a replaced worker cannot write. */
  leaseId: string;
  pid: number;
  host: string;
  prefix: string;
  /** Wall ms of the registration and of the last heartbeat. */
  since: number;
  lastBeat: number;
  /** Wall ms the sync stream closed, or null while it is open (or not opened yet). */
  syncClosedAt: number | null;
  /** Device ids the worker hosts. */
  meters: string[];
  /** Released by the worker itself (a clean stop). */
  released: boolean;
}

export function isAlive(lease: WorkerLease, wallNow: number): boolean {
  if (lease.released) return false;
  if (wallNow - lease.lastBeat >= DEAD_AFTER_MS) return false;
  return lease.syncClosedAt === null || wallNow - lease.syncClosedAt < SYNC_GRACE_MS;
}

/** "pid 123 on host h since 2026-…": how a conflict names the holder. */
export function holderText(lease: WorkerLease): string {
  return `worker ${lease.name} (pid ${lease.pid} on ${lease.host}, since ${new Date(lease.since).toISOString()})`;
}

/** Two prefixes overlap when one starts with the other: their meter ids could collide. */
export function prefixesOverlap(a: string, b: string): boolean {
  return a.startsWith(b) || b.startsWith(a);
}

/**
 * Why `name` with `prefix` may not register now, or null: a live worker of that name, or a live
 * worker whose prefix overlaps (its meters could be the same ones).
 */
export function registrationConflict(
  leases: Iterable<WorkerLease>,
  name: string,
  prefix: string,
  wallNow: number,
): string | null {
  for (const lease of leases) {
    if (!isAlive(lease, wallNow)) continue;
    if (lease.name === name) return `${holderText(lease)} is live under that name`;
    if (prefixesOverlap(lease.prefix, prefix))
      return `meters with prefix ${prefix} are hosted by ${holderText(lease)} (prefix ${lease.prefix})`;
  }
  return null;
}

/** The device id of a worker's meter n: prefix + n zero-padded to 6 digits (spec-decisions 84). */
export function workerMeterId(prefix: string, n: number): string {
  return `${prefix}${String(n).padStart(6, '0')}`;
}

/** Whether `deviceId` is one of the meters a worker with `prefix` hosts. */
export function isWorkerMeterId(prefix: string, deviceId: string): boolean {
  return deviceId.startsWith(prefix) && /^\d+$/.test(deviceId.slice(prefix.length));
}
