// What a failure to reach or open a PostgreSQL store says: the address, the database and the reason in
// words (issue 11 "Bad input"), not pg's bare "ECONNREFUSED" or "28P01".

import { StoreOpenError } from '../errors.ts';
import type { PostgresTarget } from './url.ts';

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there (connection refused)',
  ENOTFOUND: 'the host name does not resolve',
  EHOSTUNREACH: 'the host is unreachable',
  ETIMEDOUT: 'the connection timed out',
  '3D000': 'the database does not exist',
  '28P01': 'the password was refused',
  '28000': 'the server refused this user (no such role, or pg_hba.conf has no entry for it)',
  '42501': 'the user may not create the schema or tables',
};

export function postgresOpenError(
  target: PostgresTarget,
  err: unknown,
  connectTimeoutMs: number,
): StoreOpenError {
  if (err instanceof StoreOpenError) return err;
  const e = err as { message?: string; code?: string };
  const message = e.message ?? String(err);
  const reason =
    (e.code !== undefined ? REASONS[e.code] : undefined) ??
    (/timeout/i.test(message) ? `no answer within ${connectTimeoutMs} ms` : undefined);
  const detail = reason === undefined ? message : `${reason}: ${message}`;
  return new StoreOpenError(
    `cannot open PostgreSQL store ${target.user}@${target.label}: ${detail}${e.code ? ` (${e.code})` : ''}`,
    target.label,
  );
}
