// Opening a store from a URL-ish string, the form the CLI and config carry.

import { isPostgresUrl } from './postgres/url.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './types.ts';

export { BatchWriter, type BatchWriterOptions } from './batch-writer.ts';
export { StoreConflictError, StoreOpenError } from './errors.ts';
// pg is loaded only when a postgres:// URL is opened: the one-process demo never pays for it.
export type { PostgresStore } from './postgres/pg-store.ts';
export { redact as redactStoreUrl } from './postgres/url.ts';
export { openSqliteStore, SqliteStore } from './sqlite/sqlite-store.ts';
export type * from './types.ts';
export { SAMPLE_PROPERTIES } from './types.ts';
export { WorldOwnedError, WorldOwnerLease } from './world-owner.ts';

/**
 * `url` is a file path, `:memory:`, or `sqlite:<path>` (`sqlite::memory:` too), or
 * `postgres://user:pass@host:port/database[?schema=NAME]` (`postgresql://` too; postgres/url.ts).
 * A file's directory must exist; `createDir` creates that one directory (the CLI's default ./data).
 */
export async function openStore(url: string, options: { createDir?: boolean } = {}): Promise<Store> {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new TypeError(
      'openStore: url must be a file path, ":memory:", "sqlite:<path>" or "postgres://..."',
    );
  }
  if (isPostgresUrl(url)) {
    const { openPostgresStore } = await import('./postgres/pg-store.ts');
    return openPostgresStore({ url });
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (scheme) throw new Error(`openStore: unsupported store URL scheme "${scheme[1]}:"`);
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  if (path === '') throw new TypeError('openStore: "sqlite:" needs a path, e.g. sqlite:data/meterstack.db');
  return openSqliteStore({ path, createDir: options.createDir });
}
