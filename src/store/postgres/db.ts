// The pool, its type parsers and the transaction helper shared by the PostgreSQL store's files.

import pg from 'pg';

/**
 * BIGINT (int8) comes back from `pg` as a string by default. Every BIGINT here is ms since the epoch,
 * paise, a seq or a pk, all far below 2^53, so they are parsed as numbers. Per pool, never the global
 * `pg.types`, so other users of `pg` in the process are unaffected.
 */
const INT8 = 20;
export const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 && format !== 'binary') return (v: string) => Number(v);
    // biome-ignore lint/suspicious/noExplicitAny: pg's own overloads are not expressible here
    return (pg.types.getTypeParser as any)(oid, format);
  },
};

export type Queryable = pg.Pool | pg.PoolClient;

/** Runs `fn` in one transaction on one pooled connection; rolls back if it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Keys of the transaction-level advisory locks (pg_advisory_xact_lock(schema's oid-free hash, key)),
 * one per thing serialized across processes. The first int is hashtext(current_schema()), so two
 * schemas in one database never wait for each other.
 */
export const LOCK = { migrate: 1, worldOwner: 2, ledger: 3 } as const;

export function advisoryXactLock(client: pg.PoolClient, key: number): Promise<unknown> {
  return client.query('SELECT pg_advisory_xact_lock(hashtext(current_schema()), $1)', [key]);
}
