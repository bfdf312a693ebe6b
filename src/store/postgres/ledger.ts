// The append-only money ledger in PostgreSQL (amounts in integer paise). A trigger refuses UPDATE,
// DELETE and TRUNCATE (migration 3). A transaction id is unique across the store [LEDGER-1]: a repeat
// for the same device returns the first entry; the same id for another device is a conflict.
//
// Appends are serialized by a transaction advisory lock. Without it two processes could commit seq 7
// after seq 8 was already visible, and a reader that remembered "up to 8" (ledgerSince, a snapshot's
// ledger_seq) would never see 7: with the lock, seq order is commit order, as in SQLite.

import type pg from 'pg';
import {
  type AppendResult,
  assertPaise,
  LEDGER_COLUMNS as COLUMNS,
  type LedgerRow,
  repeatedTransaction,
  toEntry,
} from '../rows.ts';
import type { LedgerEntry, LedgerTotal } from '../types.ts';
import { advisoryXactLock, inTransaction, LOCK } from './db.ts';

// sum(bigint) is numeric in PostgreSQL; back to bigint so it parses as a number.
const TOTALS =
  'SELECT device_pk AS "devicePk", sum(amount)::bigint AS total, max(seq) AS "lastSeq" FROM ledger';

export class Ledger {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async append(entry: Omit<LedgerEntry, 'seq'>): Promise<AppendResult> {
    assertPaise(entry.amount);
    const transactionId = entry.transactionId ?? null;
    return inTransaction(this.#pool, async (c) => {
      await advisoryXactLock(c, LOCK.ledger);
      if (transactionId !== null) {
        const { rows } = await c.query<LedgerRow>(`SELECT ${COLUMNS} FROM ledger WHERE transaction_id = $1`, [
          transactionId,
        ]);
        const first = rows[0];
        if (first !== undefined) return repeatedTransaction(first, entry.devicePk, transactionId);
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
