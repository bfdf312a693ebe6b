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
    async drop() {
      const client = new pg.Client({ connectionString: BENCH_PG });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}
