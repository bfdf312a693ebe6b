import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random URL-safe token with a readable prefix, e.g. `msk_3q…` for API keys. */
export function newToken(prefix: string, bytes = 24): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

/** Secrets here are long random tokens, so a fast hash is enough (no password stretching needed). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function secretMatches(secret: string, hash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
