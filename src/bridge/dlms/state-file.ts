// [CL-9.6, CL-9.3] What the DLMS bridge must not forget across restarts, in one small JSON file: the
// recharge transaction ids it sent to the meter (DLMS carries none, so only the bridge can make a
// retried recharge credit once, MC-8.8) and the block load cursor. Written to a temporary file and
// renamed, so a crash leaves the old file or the new one, never half of one.

import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CreditCheck } from './in-doubt.ts';

/** [MC-8.8] At least 256 transaction ids across restarts; we keep this many, newest last. */
export const KEPT_TRANSACTIONS = 1024;

/**
 * applied: the meter answered success, or its credit showed the amount went in. in_doubt: the ACTION
 * went out and no answer came (CL-9.6): it may have credited, so it is never sent again until the
 * meter's credit decides it (its `check`); one without a check can no longer be decided by the bridge.
 */
export type RechargeStatus = 'applied' | 'in_doubt';

export interface RechargeEntry {
  id: string;
  status: RechargeStatus;
  at: number;
  /** [CL-9.6] in_doubt only: the amount and the meter just before the ACTION went out. */
  check?: CreditCheck;
}

interface FileV1 {
  v: 1;
  cursor_ms: number | null;
  recharges: RechargeEntry[];
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** A check as written by this bridge; anything else in the file makes it unreadable. */
function checkOk(c: unknown): boolean {
  if (c === undefined) return true;
  const k = c as Partial<CreditCheck> | null;
  return (
    typeof k === 'object' &&
    k !== null &&
    finite(k.amount) &&
    finite(k.balance) &&
    finite(k.energyWh) &&
    (k.tariffs === null || (Array.isArray(k.tariffs) && k.tariffs.every(finite))) &&
    (k.charging === null || typeof k.charging === 'boolean') &&
    (k.stepWh === undefined || (finite(k.stepWh) && k.stepWh >= 1)) &&
    (k.atMs === undefined || finite(k.atMs)) &&
    (k.meterMs === undefined || k.meterMs === null || finite(k.meterMs))
  );
}

export class BridgeStateFile {
  readonly path: string;
  #data: FileV1;

  private constructor(path: string, data: FileV1) {
    this.path = path;
    this.#data = data;
  }

  /**
   * Loads `path`, or starts empty where there is none. A file that cannot be read throws: with money at
   * stake, a bridge that forgot which recharges it applied must not start [CL-9.6].
   */
  static load(path: string): BridgeStateFile {
    if (!existsSync(path)) return new BridgeStateFile(path, { v: 1, cursor_ms: null, recharges: [] });
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(`${path}: not a DLMS bridge state file (${(err as Error).message}) [CL-9.6]`);
    }
    const d = parsed as Partial<FileV1>;
    const cursorOk = d?.cursor_ms === null || Number.isFinite(d?.cursor_ms);
    const listOk =
      Array.isArray(d?.recharges) &&
      d.recharges.every(
        (r) =>
          typeof r?.id === 'string' &&
          (r.status === 'applied' || r.status === 'in_doubt') &&
          checkOk(r.check),
      );
    if (d?.v !== 1 || !cursorOk || !listOk) {
      throw new Error(
        `${path}: not a DLMS bridge state file (version 1 with cursor_ms and recharges) [CL-9.6]`,
      );
    }
    return new BridgeStateFile(path, d as FileV1);
  }

  get cursorMs(): number | null {
    return this.#data.cursor_ms;
  }

  set cursorMs(ms: number | null) {
    if (ms === this.#data.cursor_ms) return;
    this.#data.cursor_ms = ms;
    this.#save();
  }

  recharge(transactionId: string): RechargeStatus | undefined {
    return this.#data.recharges.find((r) => r.id === transactionId)?.status;
  }

  /** [CL-9.6] No room for a new id: every kept one is in doubt, and none of those may be forgotten. */
  full(): boolean {
    const r = this.#data.recharges;
    return r.length >= KEPT_TRANSACTIONS && r.every((x) => x.status === 'in_doubt');
  }

  /** [CL-9.6] The recharges in doubt that the meter's credit can still decide, oldest first. */
  checks(): { id: string; check: CreditCheck }[] {
    return this.#data.recharges.flatMap((r) =>
      r.status === 'in_doubt' && r.check ? [{ id: r.id, check: r.check }] : [],
    );
  }

  /**
   * Remembers a recharge, on disk before the function returns (before the ACTION goes out); an
   * in_doubt one with the check that will decide it.
   */
  setRecharge(transactionId: string, status: RechargeStatus, at: number, check?: CreditCheck): void {
    const rest = this.#data.recharges.filter((r) => r.id !== transactionId);
    const entry: RechargeEntry = { id: transactionId, status, at, ...(check ? { check } : {}) };
    const all = [...rest, entry];
    // Past the limit the oldest applied ids go: an in-doubt one forgotten could credit twice, so with
    // none applied left to drop it refuses (the caller asks `full()` first and answers busy).
    while (all.length > KEPT_TRANSACTIONS) {
      const i = all.findIndex((r) => r.status === 'applied');
      if (i === -1)
        throw new Error(`${this.path}: ${KEPT_TRANSACTIONS} recharges in doubt, no room for more [CL-9.6]`);
      all.splice(i, 1);
    }
    this.#data.recharges = all;
    this.#save();
  }

  /** [CL-9.6] An in-doubt recharge the meter's credit can no longer decide: kept, its check dropped. */
  dropCheck(transactionId: string): void {
    const r = this.#data.recharges.find((x) => x.id === transactionId);
    if (!r?.check) return;
    const { check: _gone, ...rest } = r;
    this.#data.recharges = this.#data.recharges.map((x) => (x === r ? rest : x));
    this.#save();
  }

  /** The meter refused the credit for certain: nothing was applied, the id may come again. */
  forgetRecharge(transactionId: string): void {
    this.#data.recharges = this.#data.recharges.filter((r) => r.id !== transactionId);
    this.#save();
  }

  /**
   * [CL-9.6] Written whole, synced, then renamed over the old file and the folder synced: a power cut
   * leaves the old state or the new, never an empty file or a rename the disk forgot (which would let a
   * retried recharge credit twice).
   */
  #save(): void {
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, `${JSON.stringify(this.#data)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    syncFolder(dirname(this.path));
  }
}

/** The rename is durable once the folder's entry is; some systems cannot open a folder: skip there. */
function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // a folder that cannot be synced (some file systems): the file itself is synced
  } finally {
    closeSync(fd);
  }
}
