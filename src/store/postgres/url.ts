// A PostgreSQL store URL: `postgres://user:pass@host:port/database?schema=NAME`. `schema` is ours, not
// libpq's: every table lives in that schema (created if missing; spec-decisions 76), so tests and
// separate deployments can share one database. The rest goes to `pg` as is, except that a URL without
// a user or database gets the ones computed here written into it (spec-decisions 148): pg's own default
// is `$USER` read once at load, undefined under systemd, cron or a container, and an error would then
// name a user that was never tried.

import { userInfo } from 'node:os';

export interface PostgresTarget {
  /** The URL for `pg`, without our `schema` parameter. */
  connectionString: string;
  /** Schema for every table, or null for the server's default search_path (normally `public`). */
  schema: string | null;
  host: string;
  port: number;
  database: string;
  user: string;
  /** host:port/database, what error messages name (never the password). */
  label: string;
}

/** Lower-case identifiers only, so the name never needs quoting in search_path or DDL. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

export function parsePostgresUrl(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`not a PostgreSQL URL: ${redact(url)} (expected postgres://user@host:port/database)`);
  }
  const schema = parsed.searchParams.get('schema');
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `PostgreSQL URL ${redact(url)}: schema must be a lower-case identifier ([a-z_][a-z0-9_]*), not ${JSON.stringify(schema)}`,
    );
  }
  parsed.searchParams.delete('schema');
  const host = decodeURIComponent(parsed.hostname) || 'localhost';
  const port = parsed.port === '' ? 5432 : Number(parsed.port);
  const user = decodeURIComponent(parsed.username) || defaultUser();
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user;
  // The user and database tried are the ones computed here and named by every error (open-error.ts).
  if (parsed.username === '') parsed.username = encodeURIComponent(user);
  if (parsed.pathname === '' || parsed.pathname === '/') parsed.pathname = `/${encodeURIComponent(database)}`;
  return {
    connectionString: parsed.toString(),
    schema,
    host,
    port,
    database,
    user,
    label: `${host}:${port}/${database}${schema === null ? '' : `?schema=${schema}`}`,
  };
}

/**
 * libpq's default user: `$PGUSER`, else the operating-system user this process runs as (`$USER` and
 * `$LOGNAME` when set, else the password database's name for the uid), else `postgres` (a uid with no
 * name, as in some containers).
 */
export function defaultUser(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.PGUSER || env.USER || env.LOGNAME;
  if (fromEnv) return fromEnv;
  try {
    return userInfo().username || 'postgres';
  } catch {
    return 'postgres';
  }
}

/** The URL with its password hidden, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}
