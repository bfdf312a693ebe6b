// [issue 11 §3, bad input] Opening a PostgreSQL store: a schema per use, migrations safe when two
// processes start at once, and every way the server can be wrong as a StoreOpenError naming the
// address and database, quickly.

import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreOpenError } from '../errors.ts';
import { openStore } from '../index.ts';
import { seedDevice } from '../test-helpers.ts';
import { MIGRATIONS } from './migrations.ts';
import { postgresOpenError } from './open-error.ts';
import { openPostgresStore } from './pg-store.ts';
import {
  dropSchemas,
  freshSchemaName,
  PG_TEST_URL,
  postgresAbsence,
  runInSchema,
  schemaUrl,
} from './test-schemas.ts';
import { parsePostgresUrl } from './url.ts';

const absent = await postgresAbsence();
if (absent !== null) console.warn(`${absent}: postgres/open.test.ts is skipped`);

const schemas: string[] = [];
const fresh = () => {
  const s = freshSchemaName('mst_open');
  schemas.push(s);
  return s;
};
afterEach(async () => {
  await dropSchemas(schemas.splice(0));
});

/** A URL on PG_TEST_URL's server with another user, database or port. */
function variant(change: (u: URL) => void): string {
  const u = new URL(PG_TEST_URL);
  change(u);
  return u.toString();
}

describe.skipIf(absent !== null)('PostgreSQL store: open', () => {
  it('openStore(postgres://…?schema=NAME) creates the schema and puts every table in it', async () => {
    const schema = fresh();
    const store = await openStore(schemaUrl(schema));
    await seedDevice(store);
    await store.close();
    const tables = (await runInSchema(
      schema,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY 1`,
    )) as { table_name: string }[];
    expect(tables.map((t) => t.table_name)).toEqual([
      'accounts',
      'api_keys',
      'credit_receipts',
      'device_reports',
      'devices',
      'events',
      'ledger',
      'meter_snapshots',
      'register_continuity',
      'samples',
      'samples_15m',
      'samples_1d',
      'schema_migrations',
      'settings',
      'spaces',
      'world_owner',
    ]);
  });

  it('two processes opening one fresh schema at once: both open, each migration applied once', async () => {
    const url = schemaUrl(fresh());
    const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url, maxConnections: 2 })));
    await Promise.all(stores.map((s) => s.close()));
    const rows = (await runInSchema(
      new URL(url).searchParams.get('schema')!,
      'SELECT version FROM schema_migrations ORDER BY version',
    )) as { version: number }[];
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('refuses a schema newer than this build knows', async () => {
    const schema = fresh();
    await (await openPostgresStore({ url: schemaUrl(schema) })).close();
    await runInSchema(schema, "INSERT INTO schema_migrations VALUES (99, 'future', 0)");
    await expect(openPostgresStore({ url: schemaUrl(schema) })).rejects.toThrow(
      /schema version 99 is newer than this build knows/,
    );
  });

  it('a wrong database: StoreOpenError naming host, port and database', async () => {
    const url = variant((u) => {
      u.pathname = '/no_such_db_meterstack';
    });
    const err = await openStore(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    const { host, port } = parsePostgresUrl(url);
    expect((err as Error).message).toContain(`${host}:${port}/no_such_db_meterstack`);
    expect((err as Error).message).toMatch(/the database does not exist/);
  });

  it('a wrong user: StoreOpenError saying the server refused it', async () => {
    const url = variant((u) => {
      u.username = 'no_such_role_meterstack';
    });
    await expect(openStore(url)).rejects.toThrow(/no_such_role_meterstack@.*refused this user/);
  });
});

describe('PostgreSQL store: nothing there (no server needed)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = undefined;
  });

  it('nothing listening: connection refused, named', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    await expect(openStore(`postgres://postgres@127.0.0.1:${port}/test`)).rejects.toThrow(
      `cannot open PostgreSQL store postgres@127.0.0.1:${port}/test: nothing is listening there`,
    );
  });

  it('a server that accepts and never answers: a timeout, never a hang', async () => {
    const sockets: import('node:net').Socket[] = [];
    server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const started = Date.now();
    await expect(
      openPostgresStore({ url: `postgres://postgres@127.0.0.1:${port}/test`, connectTimeoutMs: 300 }),
    ).rejects.toThrow(new RegExp(`127.0.0.1:${port}/test: no answer within 300 ms`));
    expect(Date.now() - started).toBeLessThan(5_000);
    for (const s of sockets) s.destroy();
  });

  it('a refused password is said in words (SQLSTATE 28P01)', () => {
    const target = parsePostgresUrl('postgres://meter:secret@db.example:6543/prod');
    const err = postgresOpenError(
      target,
      Object.assign(new Error('password authentication failed'), { code: '28P01' }),
      5000,
    );
    expect(err.message).toBe(
      'cannot open PostgreSQL store meter@db.example:6543/prod: the password was refused: password authentication failed (28P01)',
    );
    expect(err.message).not.toContain('secret');
  });
});
