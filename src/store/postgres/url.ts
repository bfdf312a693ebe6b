// A PostgreSQL store URL: `postgres://user:pass@host:port/database?schema=NAME`. `schema` is ours, not
// libpq's: every table lives in that schema (created if missing; spec-decisions 76), so tests and
// separate deployments can share one database. The rest goes to `pg` as is.

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
  const user = decodeURIComponent(parsed.username) || process.env.PGUSER || process.env.USER || 'postgres';
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || user;
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

/** The URL with its password hidden, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}
