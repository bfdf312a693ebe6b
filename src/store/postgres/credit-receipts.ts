// [LEDGER-4] External meters' answers to ledger credits in PostgreSQL, as src/store/sqlite/credit-receipts.ts:
// one row per credit, written once; a recharge of an external device without one is pending.

import type pg from 'pg';
import {
  type LedgerRow,
  PENDING_CREDITS as PENDING,
  RECEIPT_COLUMNS,
  type ReceiptRow,
  receiptValues,
  toEntry,
  toReceipt,
} from '../rows.ts';
import type { CreditReceipt, LedgerEntry } from '../types.ts';

export class CreditReceipts {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async record(r: CreditReceipt): Promise<{ receipt: CreditReceipt; duplicate: boolean }> {
    const { rows } = await this.#pool.query<ReceiptRow>(
      `INSERT INTO credit_receipts (${RECEIPT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (ledger_seq) DO NOTHING RETURNING ${RECEIPT_COLUMNS}`,
      receiptValues(r),
    );
    if (rows[0]) return { receipt: toReceipt(rows[0]), duplicate: false };
    const first = await this.#pool.query<ReceiptRow>(
      `SELECT ${RECEIPT_COLUMNS} FROM credit_receipts WHERE ledger_seq = $1`,
      [r.ledgerSeq],
    );
    return { receipt: toReceipt(first.rows[0]!), duplicate: true };
  }

  async ofDevice(devicePk: number): Promise<CreditReceipt[]> {
    const { rows } = await this.#pool.query<ReceiptRow>(
      `SELECT ${RECEIPT_COLUMNS} FROM credit_receipts WHERE device_pk = $1 ORDER BY ledger_seq`,
      [devicePk],
    );
    return rows.map(toReceipt);
  }

  async pending(devicePk?: number): Promise<LedgerEntry[]> {
    const { rows } =
      devicePk === undefined
        ? await this.#pool.query<LedgerRow>(`${PENDING} ORDER BY l.seq`)
        : await this.#pool.query<LedgerRow>(`${PENDING} AND l.device_pk = $1 ORDER BY l.seq`, [devicePk]);
    return rows.map(toEntry);
  }
}
