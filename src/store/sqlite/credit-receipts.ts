// [LEDGER-4] External meters' answers to ledger credits, beside the append-only ledger: one row per
// credit, written once when the meter's reply comes. A recharge of an external device without a row is
// pending: the ledger decided it, the meter has not said it holds it.

import type Database from 'better-sqlite3';
import type { CreditReceipt, LedgerEntry } from '../types.ts';
import { COLUMNS, type LedgerRow, toEntry } from './ledger.ts';

interface ReceiptRow {
  ledger_seq: number;
  device_pk: number;
  outcome: CreditReceipt['outcome'];
  balance_before: number | null;
  balance_after: number | null;
  allowance: number;
  reason: string | null;
  received_at: number;
}

const RECEIPT_COLUMNS =
  'ledger_seq, device_pk, outcome, balance_before, balance_after, allowance, reason, received_at';
const PENDING = `SELECT ${COLUMNS.split(', ')
  .map((c) => `l.${c}`)
  .join(', ')} FROM ledger l JOIN devices d ON d.pk = l.device_pk
  WHERE d.kind = 'external' AND l.kind = 'recharge'
    AND NOT EXISTS (SELECT 1 FROM credit_receipts r WHERE r.ledger_seq = l.seq)`;

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
    const row = this.#insert.get(
      r.ledgerSeq,
      r.devicePk,
      r.outcome,
      r.balanceBefore,
      r.balanceAfter,
      r.allowance,
      r.reason,
      r.receivedAt,
    );
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

export function toReceipt(r: ReceiptRow): CreditReceipt {
  return {
    ledgerSeq: Number(r.ledger_seq),
    devicePk: Number(r.device_pk),
    outcome: r.outcome,
    balanceBefore: r.balance_before === null ? null : Number(r.balance_before),
    balanceAfter: r.balance_after === null ? null : Number(r.balance_after),
    allowance: Number(r.allowance),
    reason: r.reason,
    receivedAt: Number(r.received_at),
  };
}
