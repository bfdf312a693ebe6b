// When to send a request again, and after how long: the spec's client guidance (§7, "retry transient
// device failures with exponential backoff and check is_online first") as a pure function of what the
// last attempt got. Exponential backoff with full jitter: delay = random × min(cap, base × 2^(n−1)),
// so clients that failed together do not come back together. Time and chance are passed in.

import type { ApiErrorCode } from './errors.ts';

/**
 * The device failures worth another try (spec-decisions 5, 4, 3): the meter did not answer in time,
 * could not be read, or is offline for now. `device_rejected` is the meter's answer, not a failure to
 * get one, so it is not retried; nor is every other code: the same request would get the same answer.
 */
export const TRANSIENT_DEVICE_CODES: readonly ApiErrorCode[] = [
  'device_timeout',
  'properties_unreadable',
  'device_offline',
];

/** Methods that may be sent again after a network error, when the first may have been applied (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export interface RetryPolicy {
  /** Requests sent at most, the first included. Default 4. */
  attempts: number;
  /** The first backoff's upper bound, ms. Default 200. */
  baseMs: number;
  /** No backoff is longer than this, ms. Default 5,000. */
  maxMs: number;
  /** A Retry-After longer than this is not waited for: the 429 is returned. Default 60,000 (the rate window). */
  maxRetryAfterMs: number;
  /** Error codes retried with backoff. Default TRANSIENT_DEVICE_CODES. */
  codes: readonly ApiErrorCode[];
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 4,
  baseMs: 200,
  maxMs: 5000,
  maxRetryAfterMs: 60_000,
  codes: TRANSIENT_DEVICE_CODES,
};

/** What an attempt got. */
export type Outcome =
  | { kind: 'network'; error: unknown }
  | { kind: 'answer'; status: number; code: string | null; retryAfter: string | null };

export type Decision =
  | { retry: false }
  | { retry: true; delayMs: number; reason: 'network' | 'rate_limited' | ApiErrorCode };

/** Full jitter: uniform in [0, min(maxMs, baseMs × 2^(attempt−1))). */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Retry-After in ms: delay-seconds or an HTTP date (RFC 9110 §10.2.3); null if absent or unreadable. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * After attempt number `attempt` (1 = the first request) got `outcome`: send again, and when?
 * `now` is only read for a Retry-After given as a date.
 */
export function decide(
  outcome: Outcome,
  attempt: number,
  method: string,
  policy: RetryPolicy,
  random: () => number,
  now: number,
): Decision {
  if (attempt >= policy.attempts) return { retry: false };
  if (outcome.kind === 'network') {
    // The request may have reached the service: only a method that may be repeated is.
    return IDEMPOTENT.has(method.toUpperCase())
      ? { retry: true, delayMs: backoffMs(attempt, policy, random), reason: 'network' }
      : { retry: false };
  }
  if (outcome.status === 429) {
    // Nothing was done (spec-decisions 20): any method may be sent again once the window allows.
    // A little jitter on top, so the clients a window refused do not all return at its first instant.
    const wait = retryAfterMs(outcome.retryAfter, now);
    if (wait !== null && wait > policy.maxRetryAfterMs) return { retry: false };
    const delayMs =
      wait === null ? backoffMs(attempt, policy, random) : wait + Math.floor(random() * policy.baseMs);
    return { retry: true, delayMs, reason: 'rate_limited' };
  }
  const code = outcome.code as ApiErrorCode | null;
  if (code !== null && policy.codes.includes(code))
    return { retry: true, delayMs: backoffMs(attempt, policy, random), reason: code };
  return { retry: false };
}
