// The admin token's one comparison, for /sim/v1 (X-Admin-Token) and GET /metrics (also a bearer token,
// which Prometheus' scrape config sends: `authorization: {credentials: …}`). Constant time: a timing
// difference must not tell how much of a guess was right.

import { timingSafeEqual } from 'node:crypto';

export function tokenMatches(given: unknown, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return m?.[1];
}
