// A fresh store for one bench run: a SQLite file, or a PostgreSQL schema of its own on the machine's
// server (dropped after), with a counter of stored samples read from outside the service.

import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';

export const BENCH_PG = process.env.METERSTACK_BENCH_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface RowCounter {
  samples(): Promise<number>;
  close(): Promise<void>;
}

export interface BenchStore {
  /** What `serve --db` takes. */
  url: string;
  counter(): Promise<RowCounter>;
  /** One read-only query from outside the service, `?` placeholders, standard SQL both engines take. */
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

export async function storeForBench(kind: 'sqlite' | 'postgres', sqlitePath: string): Promise<BenchStore> {
  if (kind === 'sqlite') {
    return {
      url: sqlitePath,
      async counter() {
        const db = new Database(sqlitePath, { readonly: true });
        const count = db.prepare('SELECT count(*) FROM samples').pluck();
        return {
          samples: async () => count.get() as number,
          close: async () => {
            db.close();
          },
        };
      },
      async query<T>(sql: string, params: unknown[] = []) {
        const db = new Database(sqlitePath, { readonly: true });
        try {
          return db.prepare(sql).all(...params) as T[];
        } finally {
          db.close();
        }
      },
      drop: async () => {},
    };
  }
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: BENCH_PG });
  await admin.connect();
  await admin.end();
  return {
    url: `${BENCH_PG}?schema=${schema}`,
    async counter() {
      const client = new pg.Client({ connectionString: BENCH_PG });
      await client.connect();
      const q = `SELECT count(*)::int AS n FROM "${schema}".samples`;
      return {
        samples: async () => (await client.query<{ n: number }>(q)).rows[0]!.n,
        close: () => client.end(),
      };
    },
    async query<T>(sql: string, params: unknown[] = []) {
      const client = new pg.Client({ connectionString: BENCH_PG, options: `-c search_path=${schema}` });
      await client.connect();
      try {
        let n = 0;
        const text = sql.replace(/\?/g, () => `$${++n}`);
        const res = await client.query(text, params);
        // count()/sum() come back as strings (BIGINT/NUMERIC): numbers here, as SQLite gives them.
        return res.rows.map((r) =>
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [
              k,
              typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v,
            ]),
          ),
        ) as T[];
      } finally {
        await client.end();
      }
    },
    async drop() {
      const client = new pg.Client({ connectionString: BENCH_PG });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}
