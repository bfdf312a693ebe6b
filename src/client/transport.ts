// The fetch the typed client sends through: the request, then again as the retry policy (retry.ts)
// says, sleeping in between. A success costs nothing extra: the body of an answer is looked at only
// when its status is one a retried code can have (400 for the device codes) or 429.

import { ERRORS } from '../http/errors.ts';
import { type Decision, decide, type Outcome, type RetryPolicy } from './retry.ts';

export interface RetryInfo {
  method: string;
  url: string;
  /** The attempt that failed (1 = the first request). */
  attempt: number;
  delayMs: number;
  reason: Extract<Decision, { retry: true }>['reason'];
}

export interface TransportOptions {
  policy: RetryPolicy;
  fetch: (request: Request) => Promise<Response>;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => number;
  /** Each attempt is abandoned (a network error) after this long; 0: never. */
  timeoutMs: number;
  onRetry?: (info: RetryInfo) => void;
}

/** How many requests each answer took, for the error the client makes of it. */
export const attemptsOf = new WeakMap<Response, number>();

/** No answer after every attempt allowed: the last network error, and how many were sent. */
export class SendFailed extends Error {
  constructor(
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

async function codeOf(response: Response): Promise<string | null> {
  try {
    const body = (await response.clone().json()) as { error?: { code?: unknown } } | null;
    return typeof body?.error?.code === 'string' ? body.error.code : null;
  } catch {
    return null;
  }
}

export function retryingFetch(opts: TransportOptions): (request: Request) => Promise<Response> {
  const codeStatuses = new Set<number>(opts.policy.codes.map((c) => ERRORS[c].status));
  const send = (request: Request) =>
    opts.timeoutMs > 0
      ? opts.fetch(
          new Request(request, {
            signal: AbortSignal.any([request.signal, AbortSignal.timeout(opts.timeoutMs)]),
          }),
        )
      : opts.fetch(request);

  return async function fetchWithRetry(request: Request): Promise<Response> {
    // A body can be read once: each attempt sends a copy of the pristine request.
    const pristine = request.body === null ? null : request.clone();
    for (let attempt = 1; ; attempt++) {
      const copy = pristine === null ? request : attempt === 1 ? request : pristine.clone();
      let outcome: Outcome;
      let response: Response | null = null;
      try {
        response = await send(copy);
        if (response.ok) {
          attemptsOf.set(response, attempt);
          return response;
        }
        const looked = response.status === 429 || codeStatuses.has(response.status);
        outcome = {
          kind: 'answer',
          status: response.status,
          code: looked ? await codeOf(response) : null,
          retryAfter: response.headers.get('retry-after'),
        };
      } catch (error) {
        // The caller gave up (its own signal): never retried.
        if (request.signal.aborted) throw error;
        outcome = { kind: 'network', error };
      }
      const decision = decide(outcome, attempt, request.method, opts.policy, opts.random, opts.now());
      if (!decision.retry) {
        if (outcome.kind === 'network') throw new SendFailed(attempt, outcome.error);
        attemptsOf.set(response!, attempt);
        return response!;
      }
      // The answer we will not use: free its connection.
      await response?.body?.cancel().catch(() => undefined);
      opts.onRetry?.({
        method: request.method,
        url: request.url,
        attempt,
        delayMs: decision.delayMs,
        reason: decision.reason,
      });
      await opts.sleep(decision.delayMs);
    }
  };
}
