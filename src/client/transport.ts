// The fetch the typed client sends through: the request, then again as the retry policy (retry.ts)
// says, sleeping in between. A success costs nothing extra: the body of an answer is looked at only
// when its status is one a retried code can have (400 for the device codes) or 429.
//
// openapi-fetch builds its request with the `Request` class it is given: here `OutgoingRequest`, a
// plain record, so a call builds one undici Request (inside fetch), not three, the cost that kept the
// client from bare fetch's speed (bench/client.ts). Its body is the serialized JSON string, so a
// retry sends it again as it is.

import { ERRORS } from '../http/errors.ts';

// The DOM lib's names for fetch's types (this project compiles without "dom").
type BodyInit = NonNullable<RequestInit['body']>;
type RequestRedirect = NonNullable<RequestInit['redirect']>;

import { type Decision, decide, type Outcome, type RetryPolicy } from './retry.ts';

/** What openapi-fetch hands to fetch: URL, method, headers, body, signal, like a Request. */
export class OutgoingRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: BodyInit | null;
  readonly signal: AbortSignal | null;
  readonly redirect: RequestRedirect | undefined;

  constructor(url: string | URL, init: RequestInit = {}) {
    this.url = String(url);
    this.method = (init.method ?? 'GET').toUpperCase();
    // openapi-fetch passes the Headers it merged: kept, not copied.
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.body = init.body ?? null;
    this.signal = init.signal ?? null;
    this.redirect = init.redirect;
  }

  clone(): OutgoingRequest {
    return new OutgoingRequest(this.url, this);
  }

  /** What fetch() takes, with an attempt's own signal. */
  init(signal: AbortSignal | null): RequestInit {
    return { method: this.method, headers: this.headers, body: this.body, signal, redirect: this.redirect };
  }
}

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
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => number;
  /** Each attempt is abandoned (a network error) after this long; 0: never. */
  timeoutMs: number;
  onRetry?: (info: RetryInfo) => void;
}

/** How many requests an answer took, for the error the client makes of it (absent: one). */
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

/** A body that can be sent twice (not a one-shot stream). */
function resendable(body: BodyInit | null): boolean {
  return body === null || typeof body === 'string' || !(body instanceof ReadableStream);
}

export function retryingFetch(opts: TransportOptions): (request: OutgoingRequest) => Promise<Response> {
  const codeStatuses = new Set<number>(opts.policy.codes.map((c) => ERRORS[c].status));
  const signalFor = (caller: AbortSignal | null): AbortSignal | null => {
    if (opts.timeoutMs <= 0) return caller;
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    return caller ? AbortSignal.any([caller, timeout]) : timeout;
  };

  return async function fetchWithRetry(request: OutgoingRequest): Promise<Response> {
    const canResend = resendable(request.body);
    for (let attempt = 1; ; attempt++) {
      let outcome: Outcome;
      let response: Response | null = null;
      try {
        response = await opts.fetch(request.url, request.init(signalFor(request.signal)));
        if (response.ok) {
          // Only retried answers are noted: a WeakMap entry per call would cost the GC on the hot path.
          if (attempt > 1) attemptsOf.set(response, attempt);
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
        if (request.signal?.aborted) throw error;
        outcome = { kind: 'network', error };
      }
      const decision = canResend
        ? decide(outcome, attempt, request.method, opts.policy, opts.random, opts.now())
        : ({ retry: false } as const);
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
