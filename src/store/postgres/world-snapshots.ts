// World snapshots on PostgreSQL (spec-decisions 110): a schema per snapshot beside the store's own
// (`ws_` and a hash of the store's schema and the name), filled with CREATE TABLE … AS in one
// REPEATABLE READ transaction, and a catalog row in `world_snapshots` (made on first use, beside the
// migrated tables). Restoring empties the world tables and copies the snapshot's back in one
// transaction, identity sequences included. The portable file is the SQLite one (../sqlite/world-snapshots.ts).

import type pg from 'pg';
import { SnapshotFileError, StoreConflictError } from '../errors.ts';
import type { WorldSnapshotContents, WorldSnapshotInfo, WorldSnapshotMeta } from '../types.ts';
import { READING_TABLES, snapshotContentsSql, WORLD_TABLES } from '../world-tables.ts';
import { inTransaction } from './db.ts';

/** The tables whose key is an identity column, and that column. */
const IDENTITIES: Readonly<Record<string, string>> = {
  accounts: 'id',
  spaces: 'id',
  devices: 'pk',
  ledger: 'seq',
};
const ALL = [...WORLD_TABLES, 'settings'] as const;

const CATALOG = `CREATE TABLE IF NOT EXISTS world_snapshots (
  name TEXT PRIMARY KEY, schema_name TEXT NOT NULL, created_at BIGINT NOT NULL, clock BIGINT NOT NULL,
  speed DOUBLE PRECISION NOT NULL, devices BIGINT NOT NULL, readings BIGINT NOT NULL, bytes BIGINT NOT NULL)`;

interface CatalogRow {
  name: string;
  schema_name: string;
  created_at: number;
  clock: number;
  speed: number;
  devices: number;
  readings: number;
  bytes: number;
}

const info = (r: CatalogRow): WorldSnapshotInfo => ({
  name: r.name,
  createdAt: r.created_at,
  clock: r.clock,
  speed: r.speed,
  devices: r.devices,
  readings: r.readings,
  bytes: r.bytes,
});

export class PgWorldSnapshots {
  readonly #pool: pg.Pool;
  #made = false;
  readonly #replaced: () => void;

  constructor(pool: pg.Pool, replaced: () => void) {
    this.#pool = pool;
    this.#replaced = replaced;
  }

  async #catalog(): Promise<void> {
    if (this.#made) return;
    await this.#pool.query(CATALOG);
    this.#made = true;
  }

  async get(name: string): Promise<WorldSnapshotInfo | null> {
    const row = await this.#row(name);
    return row && info(row);
  }

  async #row(name: string, q: pg.Pool | pg.PoolClient = this.#pool): Promise<CatalogRow | null> {
    await this.#catalog();
    const { rows } = await q.query<CatalogRow>('SELECT * FROM world_snapshots WHERE name = $1', [name]);
    return rows[0] ?? null;
  }

  async list(): Promise<WorldSnapshotInfo[]> {
    await this.#catalog();
    const { rows } = await this.#pool.query<CatalogRow>(
      'SELECT * FROM world_snapshots ORDER BY created_at, name',
    );
    return rows.map(info);
  }

  async save(name: string, meta: WorldSnapshotMeta): Promise<WorldSnapshotInfo> {
    await this.#catalog();
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      if (await this.#row(name, client))
        throw new StoreConflictError(`snapshot ${name} already exists`, 'snapshot');
      const schema = (
        await client.query<{ s: string }>(
          "SELECT 'ws_' || substr(md5(current_schema() || '/' || $1::text), 1, 24) AS s",
          [name],
        )
      ).rows[0]!.s;
      await client.query(`CREATE SCHEMA ${schema}`);
      for (const t of ALL) await client.query(`CREATE TABLE ${schema}.${t} AS SELECT * FROM ${t}`);
      await client.query(`CREATE TABLE ${schema}.identities (name TEXT, value BIGINT)`);
      for (const [t, col] of Object.entries(IDENTITIES))
        await client.query(
          `INSERT INTO ${schema}.identities SELECT $1, CASE WHEN is_called THEN last_value ELSE 0 END FROM ${await seqOf(client, t, col)}`,
          [t],
        );
      const count = async (t: string) =>
        Number(
          (await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${schema}.${t}`)).rows[0]!.n,
        );
      const bytes = Number(
        (
          await client.query<{ b: number }>(
            `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS b FROM pg_class c
             JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
            [schema],
          )
        ).rows[0]!.b,
      );
      const { rows } = await client.query<CatalogRow>(
        'INSERT INTO world_snapshots VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *',
        [
          name,
          schema,
          meta.createdAt,
          meta.clock,
          meta.speed,
          await count('devices'),
          await count('samples'),
          bytes,
        ],
      );
      await client.query('COMMIT');
      return info(rows[0]!);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  }

  async delete(name: string): Promise<boolean> {
    await this.#catalog();
    return inTransaction(this.#pool, async (c) => {
      const row = await this.#row(name, c);
      if (!row) return false;
      await c.query(`DROP SCHEMA IF EXISTS ${row.schema_name} CASCADE`);
      await c.query('DELETE FROM world_snapshots WHERE name = $1', [name]);
      return true;
    });
  }

  async restore(name: string, keep: readonly string[]): Promise<WorldSnapshotInfo | null> {
    await this.#catalog();
    try {
      return await inTransaction(this.#pool, async (c) => {
        const row = await this.#row(name, c);
        if (!row) return null;
        await replaceWorld(c, keep, row.schema_name);
        return info(row);
      });
    } finally {
      this.#replaced();
    }
  }

  async reset(keep: readonly string[]): Promise<void> {
    try {
      await inTransaction(this.#pool, (c) => replaceWorld(c, keep, null));
    } finally {
      this.#replaced();
    }
  }

  async deleteDeviceReadings(devicePk: number): Promise<void> {
    await inTransaction(this.#pool, async (c) => {
      for (const t of READING_TABLES) await c.query(`DELETE FROM ${t} WHERE device_pk = $1`, [devicePk]);
    });
  }

  /** The snapshot's devices, meters and ledger, for the world's checks (SNAP-4). */
  async read(name: string): Promise<WorldSnapshotContents | null> {
    const row = await this.#row(name);
    if (!row) return null;
    const s = row.schema_name;
    const q = async <T>(sql: string) => (await this.#pool.query(sql)).rows as T[];
    const sql = snapshotContentsSql(`${s}.`);
    return {
      info: info(row),
      devices: await q(sql.devices),
      meters: await q(sql.meters),
      ledger: await q(sql.ledger),
    };
  }

  /** Every row of the snapshot's table `t`, in pages (for the portable file). */
  async *rows(name: string, t: string, page = 20_000): AsyncGenerator<Record<string, unknown>[]> {
    const row = await this.#row(name);
    if (!row) throw new SnapshotFileError(`no snapshot ${name}`);
    if (!(await hasTable(this.#pool, row.schema_name, t))) return; // older than the table: none of its rows
    for (let offset = 0; ; offset += page) {
      const { rows } = await this.#pool.query(
        `SELECT * FROM ${row.schema_name}.${t} ORDER BY 1, 2 LIMIT $1 OFFSET $2`,
        [page, offset],
      );
      if (rows.length > 0) yield rows;
      if (rows.length < page) return;
    }
  }

  /** The snapshot's identity values (for the portable file's sqlite_sequence). */
  async identities(name: string): Promise<Map<string, number>> {
    const row = await this.#row(name);
    if (!row) return new Map();
    const { rows } = await this.#pool.query<{ name: string; value: number }>(
      `SELECT name, value FROM ${row.schema_name}.identities`,
    );
    return new Map(rows.map((r) => [r.name, Number(r.value)]));
  }

  /** Makes snapshot `name` from pages of rows per table (a portable file being imported). */
  async fill(
    meta: WorldSnapshotMeta & { name: string; devices: number; readings: number; bytes: number },
    tables: (t: string) => Iterable<Record<string, unknown>[]>,
    identities: Map<string, number>,
  ): Promise<WorldSnapshotInfo> {
    await this.#catalog();
    return inTransaction(this.#pool, async (c) => {
      if (await this.#row(meta.name, c))
        throw new StoreConflictError(`snapshot ${meta.name} already exists`, 'snapshot');
      const schema = (
        await c.query<{ s: string }>(
          "SELECT 'ws_' || substr(md5(current_schema() || '/' || $1::text), 1, 24) AS s",
          [meta.name],
        )
      ).rows[0]!.s;
      await c.query(`CREATE SCHEMA ${schema}`);
      for (const t of ALL) {
        await c.query(`CREATE TABLE ${schema}.${t} AS SELECT * FROM ${t} WITH NO DATA`);
        for (const page of tables(t)) await insertPage(c, `${schema}.${t}`, page);
      }
      await c.query(`CREATE TABLE ${schema}.identities (name TEXT, value BIGINT)`);
      for (const [t, v] of identities)
        await c.query(`INSERT INTO ${schema}.identities VALUES ($1, $2)`, [t, v]);
      const { rows } = await c.query<CatalogRow>(
        'INSERT INTO world_snapshots VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *',
        [meta.name, schema, meta.createdAt, meta.clock, meta.speed, meta.devices, meta.readings, meta.bytes],
      );
      return info(rows[0]!);
    });
  }
}

async function seqOf(c: pg.PoolClient, table: string, col: string): Promise<string> {
  const { rows } = await c.query<{ s: string }>('SELECT pg_get_serial_sequence($1, $2) AS s', [table, col]);
  return rows[0]!.s;
}

async function hasTable(c: pg.Pool | pg.PoolClient, schema: string, table: string): Promise<boolean> {
  const { rows } = await c.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
    `${schema}.${table}`,
  ]);
  return rows[0]?.t != null;
}

/** Empties the world tables and (from schema `from`) fills them again; inside the caller's transaction. */
async function replaceWorld(c: pg.PoolClient, keep: readonly string[], from: string | null): Promise<void> {
  await c.query('ALTER TABLE ledger DISABLE TRIGGER ledger_no_update, DISABLE TRIGGER ledger_no_truncate');
  // [SNAP-9] A revocation outlives a restore: a key revoked after the snapshot stays revoked.
  const revoked = await c.query<{ key_hash: string; revoked_at: string }>(
    'SELECT key_hash, revoked_at FROM api_keys WHERE revoked_at IS NOT NULL',
  );
  await c.query(`TRUNCATE ${WORLD_TABLES.join(', ')}`);
  await c.query('DELETE FROM settings WHERE NOT (key = ANY($1))', [keep]);
  if (from) {
    for (const t of WORLD_TABLES) {
      // A snapshot older than a table (credit_receipts, migration 8) had no rows of it.
      if (!(await hasTable(c, from, t))) continue;
      await c.query(`INSERT INTO ${t} OVERRIDING SYSTEM VALUE SELECT * FROM ${from}.${t}`);
    }
    await c.query(`INSERT INTO settings SELECT * FROM ${from}.settings WHERE NOT (key = ANY($1))`, [keep]);
    if (revoked.rows.length > 0)
      await c.query(
        `UPDATE api_keys k SET revoked_at = r.revoked_at FROM unnest($1::text[], $2::bigint[]) AS r (key_hash, revoked_at)
         WHERE k.key_hash = r.key_hash AND k.revoked_at IS NULL`,
        [revoked.rows.map((r) => r.key_hash), revoked.rows.map((r) => r.revoked_at)],
      );
    const ids = await c.query<{ name: string; value: number }>(`SELECT name, value FROM ${from}.identities`);
    for (const { name, value } of ids.rows)
      await c.query('SELECT setval($1, greatest($2::bigint, 1), $2::bigint > 0)', [
        await seqOf(c, name, IDENTITIES[name]!),
        value,
      ]);
  }
  await c.query('ALTER TABLE ledger ENABLE TRIGGER ledger_no_update, ENABLE TRIGGER ledger_no_truncate');
}

async function insertPage(c: pg.PoolClient, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const cols = Object.keys(rows[0]!);
  for (let i = 0; i < rows.length; i += 2000) {
    const chunk = rows.slice(i, i + 2000);
    const params: unknown[] = [];
    const values = chunk.map(
      (r) => `(${cols.map((k) => `$${params.push(r[k] === undefined ? null : r[k])}`).join(', ')})`,
    );
    await c.query(`INSERT INTO ${table} (${cols.join(', ')}) VALUES ${values.join(', ')}`, params);
  }
}
