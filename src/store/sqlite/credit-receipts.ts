// [LEDGER-4] External meters' answers to ledger credits, beside the append-only ledger: one row per
// credit, written once when the meter's reply comes. A recharge of an external device without a row is
// pending: the ledger decided it, the meter has not said it holds it.

import type Database from 'better-sqlite3';
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
  readonly #insert: Database.Statement<unknown[], ReceiptRow>;
  readonly #bySeq: Database.Statement<[number], ReceiptRow>;
  readonly #ofDevice: Database.Statement<[number], ReceiptRow>;
  readonly #pending: Database.Statement<[], LedgerRow>;
  readonly #pendingOf: Database.Statement<[number], LedgerRow>;

  constructor(db: Database.Database) {
    this.#insert =
      db.prepare(`INSERT INTO credit_receipts (${RECEIPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (ledger_seq) DO NOTHING RETURNING ${RECEIPT_COLUMNS}`);
    this.#bySeq = db.prepare(`SELECT ${RECEIPT_COLUMNS} FROM credit_receipts WHERE ledger_seq = ?`);
    this.#ofDevice = db.prepare(
      `SELECT ${RECEIPT_COLUMNS} FROM credit_receipts WHERE device_pk = ? ORDER BY ledger_seq`,
    );
    this.#pending = db.prepare(`${PENDING} ORDER BY l.seq`);
    this.#pendingOf = db.prepare(`${PENDING} AND l.device_pk = ? ORDER BY l.seq`);
  }

  record(r: CreditReceipt): { receipt: CreditReceipt; duplicate: boolean } {
    const row = this.#insert.get(...receiptValues(r));
    if (row) return { receipt: toReceipt(row), duplicate: false };
    return { receipt: toReceipt(this.#bySeq.get(r.ledgerSeq)!), duplicate: true };
  }

  ofDevice(devicePk: number): CreditReceipt[] {
    return this.#ofDevice.all(devicePk).map(toReceipt);
  }

  pending(devicePk?: number): LedgerEntry[] {
    return (devicePk === undefined ? this.#pending.all() : this.#pendingOf.all(devicePk)).map(toEntry);
  }
}
