// Recognising PostgreSQL errors, so they can become the Store's own errors.

/** SQLSTATE 23505: a UNIQUE or PRIMARY KEY constraint refused the row. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '23505';
}
