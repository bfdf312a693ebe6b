// The append-only money ledger (amounts in integer paise). Triggers in the schema refuse UPDATE and DELETE.
// A transaction id is unique across the store (its UNIQUE index answers every retry [LEDGER-1]), which
// makes a recharge idempotent: a repeat for the same device returns the first entry; the same id for
// another device is a conflict.

import type Database from 'better-sqlite3';
import {
  type AppendResult,
  assertPaise,
  LEDGER_COLUMNS as COLUMNS,
  type LedgerRow,
  repeatedTransaction,
  toEntry,
} from '../rows.ts';
import type { LedgerEntry, LedgerTotal } from '../types.ts';

export class Ledger {
  readonly #insert: Database.Statement<[number, string, number, string | null, number], LedgerRow>;
  readonly #byTransaction: Database.Statement<[string], LedgerRow>;
  readonly #since: Database.Statement<[number, number], LedgerRow>;
  readonly #totals: Database.Statement<[], LedgerTotal>;
  readonly #totalOf: Database.Statement<[number], LedgerTotal>;
  readonly #append: Database.Transaction<(entry: Omit<LedgerEntry, 'seq'>) => AppendResult>;

  constructor(db: Database.Database) {
    this.#insert = db.prepare(`
      INSERT INTO ledger (device_pk, kind, amount, transaction_id, created_at) VALUES (?, ?, ?, ?, ?)
      RETURNING ${COLUMNS}`);
    this.#byTransaction = db.prepare(`SELECT ${COLUMNS} FROM ledger WHERE transaction_id = ?`);
    this.#since = db.prepare(`SELECT ${COLUMNS} FROM ledger WHERE device_pk = ? AND seq > ? ORDER BY seq`);
    const totals = 'SELECT device_pk AS devicePk, sum(amount) AS total, max(seq) AS lastSeq FROM ledger';
    this.#totals = db.prepare(`${totals} GROUP BY device_pk ORDER BY device_pk`);
    this.#totalOf = db.prepare(`${totals} WHERE device_pk = ? GROUP BY device_pk`);
    this.#append = db.transaction((entry) => {
      if (entry.transactionId !== null) {
        const first = this.#byTransaction.get(entry.transactionId);
        if (first !== undefined) return repeatedTransaction(first, entry.devicePk, entry.transactionId);
      }
      const row = this.#insert.get(
        entry.devicePk,
        entry.kind,
        entry.amount,
        entry.transactionId,
        entry.createdAt,
      )!;
      return { entry: toEntry(row), duplicate: false };
    });
  }

  append(entry: Omit<LedgerEntry, 'seq'>): AppendResult {
    assertPaise(entry.amount);
    // IMMEDIATE: take the write lock before the lookup, so another process cannot insert the same
    // transaction id between our check and our insert.
    return this.#append.immediate({ ...entry, transactionId: entry.transactionId ?? null });
  }

  /** Sum and newest seq per device (ledger_device_seq covers both queries). */
  totals(devicePk?: number): LedgerTotal[] {
    return devicePk === undefined ? this.#totals.all() : this.#totalOf.all(devicePk);
  }

  /** Entries of one device with seq > afterSeq, in order. */
  since(devicePk: number, afterSeq: number): LedgerEntry[] {
    return this.#since.all(devicePk, afterSeq).map(toEntry);
  }
}
