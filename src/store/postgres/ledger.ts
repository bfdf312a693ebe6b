// The append-only money ledger in PostgreSQL (amounts in integer paise). A trigger refuses UPDATE,
// DELETE and TRUNCATE (migration 3). A transaction id is unique across the store [LEDGER-1]: a repeat
// for the same device returns the first entry; the same id for another device is a conflict.
//
// Appends are serialized by a transaction advisory lock. Without it two processes could commit seq 7
// after seq 8 was already visible, and a reader that remembered "up to 8" (ledgerSince, a snapshot's
// ledger_seq) would never see 7: with the lock, seq order is commit order, as in SQLite.

import type pg from 'pg';
import { StoreConflictError } from '../errors.ts';
import type { LedgerEntry, LedgerTotal } from '../types.ts';
import { advisoryXactLock, inTransaction, LOCK } from './db.ts';

export interface LedgerRow {
  seq: number;
  device_pk: number;
  kind: LedgerEntry['kind'];
  amount: number;
  transaction_id: string | null;
  created_at: number;
}

export const COLUMNS = 'seq, device_pk, kind, amount, transaction_id, created_at';
// sum(bigint) is numeric in PostgreSQL; back to bigint so it parses as a number.
const TOTALS =
  'SELECT device_pk AS "devicePk", sum(amount)::bigint AS total, max(seq) AS "lastSeq" FROM ledger';

export interface AppendResult {
  entry: LedgerEntry;
  duplicate: boolean;
}

export class Ledger {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async append(entry: Omit<LedgerEntry, 'seq'>): Promise<AppendResult> {
    if (!Number.isSafeInteger(entry.amount)) {
      throw new TypeError(`ledger amount must be an integer number of paise, not ${entry.amount}`);
    }
    const transactionId = entry.transactionId ?? null;
    return inTransaction(this.#pool, async (c) => {
      await advisoryXactLock(c, LOCK.ledger);
      if (transactionId !== null) {
        const { rows } = await c.query<LedgerRow>(`SELECT ${COLUMNS} FROM ledger WHERE transaction_id = $1`, [
          transactionId,
        ]);
        const first = rows[0];
        if (first !== undefined) {
          if (first.device_pk !== entry.devicePk) {
            throw new StoreConflictError(
              `transaction id ${JSON.stringify(transactionId)} belongs to another device`,
              'transaction_id',
            );
          }
          return { entry: toEntry(first), duplicate: true };
        }
      }
      const { rows } = await c.query<LedgerRow>(
        `INSERT INTO ledger (device_pk, kind, amount, transaction_id, created_at) VALUES ($1, $2, $3, $4, $5)
         RETURNING ${COLUMNS}`,
        [entry.devicePk, entry.kind, entry.amount, transactionId, entry.createdAt],
      );
      return { entry: toEntry(rows[0]!), duplicate: false };
    });
  }

  async totals(devicePk?: number): Promise<LedgerTotal[]> {
    const { rows } =
      devicePk === undefined
        ? await this.#pool.query<LedgerTotal>(`${TOTALS} GROUP BY device_pk ORDER BY device_pk`)
        : await this.#pool.query<LedgerTotal>(`${TOTALS} WHERE device_pk = $1 GROUP BY device_pk`, [
            devicePk,
          ]);
    return rows;
  }

  async since(devicePk: number, afterSeq: number): Promise<LedgerEntry[]> {
    const { rows } = await this.#pool.query<LedgerRow>(
      `SELECT ${COLUMNS} FROM ledger WHERE device_pk = $1 AND seq > $2 ORDER BY seq`,
      [devicePk, afterSeq],
    );
    return rows.map(toEntry);
  }
}

export function toEntry(r: LedgerRow): LedgerEntry {
  return {
    seq: r.seq,
    devicePk: r.device_pk,
    kind: r.kind,
    amount: r.amount,
    transactionId: r.transaction_id,
    createdAt: r.created_at,
  };
}
