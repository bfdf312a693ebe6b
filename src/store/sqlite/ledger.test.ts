// SQLite-only ledger checks; the behaviour is in ../ledger.test.ts, run on both backends.

import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { useTempStores } from '../test-helpers.ts';

const stores = useTempStores();

describe('ledger (SQLite)', () => {
  it('[issue 8 item 2] finds a transaction id through an index, not a scan (the ledger decides every retry)', async () => {
    const store = stores.open();
    await store.close();
    const db = new Database(`${stores.dir()}/store.db`, { readonly: true });
    try {
      const plan = db
        .prepare<[], { detail: string }>(
          "EXPLAIN QUERY PLAN SELECT seq FROM ledger WHERE transaction_id = 'tx-1'",
        )
        .all()
        .map((r) => r.detail)
        .join('; ');
      expect(plan).toMatch(/USING (COVERING )?INDEX \S+ \(transaction_id=\?\)/);
    } finally {
      db.close();
    }
  });
});
