// [LEDGER-4] External meters' answers to ledger credits in PostgreSQL, as src/store/sqlite/credit-receipts.ts:
// one row per credit, written once; a recharge of an external device without one is pending.

import type pg from 'pg';
import { toReceipt } from '../sqlite/credit-receipts.ts';
import type { CreditReceipt, LedgerEntry } from '../types.ts';
import { COLUMNS, type LedgerRow, toEntry } from './ledger.ts';

const RECEIPT_COLUMNS =
  'ledger_seq, device_pk, outcome, balance_before, balance_after, allowance, reason, received_at';
const PENDING = `SELECT ${COLUMNS.split(', ')
  .map((c) => `l.${c}`)
  .join(', ')} FROM ledger l JOIN devices d ON d.pk = l.device_pk
  WHERE d.kind = 'external' AND l.kind = 'recharge'
    AND NOT EXISTS (SELECT 1 FROM credit_receipts r WHERE r.ledger_seq = l.seq)`;

type ReceiptRow = Parameters<typeof toReceipt>[0];

export class CreditReceipts {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async record(r: CreditReceipt): Promise<{ receipt: CreditReceipt; duplicate: boolean }> {
    const { rows } = await this.#pool.query<ReceiptRow>(
      `INSERT INTO credit_receipts (${RECEIPT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (ledger_seq) DO NOTHING RETURNING ${RECEIPT_COLUMNS}`,
      [
        r.ledgerSeq,
        r.devicePk,
        r.outcome,
        r.balanceBefore,
        r.balanceAfter,
        r.allowance,
        r.reason,
        r.receivedAt,
      ],
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
