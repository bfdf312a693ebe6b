// What a client call can fail with: one typed error whose `code` is a code of the service's one error
// list (src/http/errors.ts), or one of the two failures a client meets before any envelope exists.
// `KnownMeterstackError` is a union discriminated by `code`, so `switch (err.code)` narrows `detail`:
// an array of {loc, msg} items for validation_error, a string for every other code.

import { ERRORS, type ErrorCode, type ValidationItem } from '../http/errors.ts';

export type { ValidationItem };
/** The envelope's error codes, from the service's one list. */
export type ApiErrorCode = ErrorCode;
/**
 * Failures with no envelope: `network_error` (no answer: refused, reset, timed out), `invalid_response`
 * (an answer that is not the service's envelope, e.g. a proxy's HTML page, or an unknown code).
 */
export type ClientErrorCode = 'network_error' | 'invalid_response';
export type MeterstackErrorCode = ApiErrorCode | ClientErrorCode;

export type DetailOf<C extends MeterstackErrorCode> = C extends 'validation_error'
  ? ValidationItem[]
  : string;

/** The one error type of the client; never thrown or returned untyped. */
export class MeterstackError extends Error {
  override readonly name = 'MeterstackError';

  constructor(
    readonly code: MeterstackErrorCode,
    /** The HTTP status of the answer; 0 when there was none (network_error). */
    readonly status: number,
    readonly detail: string | ValidationItem[],
    readonly extra: {
      /** How many requests were sent, retries included. */
      attempts?: number;
      /** From Retry-After, on rate_limit_exceeded. */
      retryAfterMs?: number;
      cause?: unknown;
    } = {},
  ) {
    super(
      `${code} (${status}): ${typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`,
      extra.cause === undefined ? undefined : { cause: extra.cause },
    );
  }

  /** Narrows to the error of one code, e.g. `if (err.is('validation_error')) err.detail[0].loc`. */
  is<C extends MeterstackErrorCode>(code: C): this is MeterstackErrorOf<C> {
    return this.code === code;
  }
}

export type MeterstackErrorOf<C extends MeterstackErrorCode> = MeterstackError & {
  readonly code: C;
  readonly detail: DetailOf<C>;
};

/** Every MeterstackError, as a union discriminated by `code`. */
export type KnownMeterstackError = { [C in MeterstackErrorCode]: MeterstackErrorOf<C> }[MeterstackErrorCode];

const API_CODES = new Set<string>(Object.keys(ERRORS));

export function isApiErrorCode(code: unknown): code is ApiErrorCode {
  return typeof code === 'string' && API_CODES.has(code);
}

function isValidationItems(detail: unknown): detail is ValidationItem[] {
  return (
    Array.isArray(detail) &&
    detail.every(
      (i) =>
        typeof i === 'object' &&
        i !== null &&
        Array.isArray((i as ValidationItem).loc) &&
        typeof (i as ValidationItem).msg === 'string',
    )
  );
}

function describe(body: unknown): string {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? 'an empty body' : text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The typed error for an answer that is not a success: the envelope's code and detail, checked. */
export function errorFromBody(
  status: number,
  body: unknown,
  extra: MeterstackError['extra'] = {},
): KnownMeterstackError {
  const error = (body as { error?: { code?: unknown; detail?: unknown } } | null)?.error;
  const code = error?.code;
  const detail = error?.detail;
  let err: MeterstackError;
  if (!isApiErrorCode(code)) {
    const what =
      typeof code === 'string'
        ? `an error code this client does not know (${JSON.stringify(code)})`
        : 'not the service envelope';
    err = new MeterstackError(
      'invalid_response',
      status,
      `HTTP ${status}, ${what}: ${describe(body)}`,
      extra,
    );
  } else if (code === 'validation_error' ? isValidationItems(detail) : typeof detail === 'string') {
    err = new MeterstackError(code, status, detail as string | ValidationItem[], extra);
  } else {
    err = new MeterstackError(
      'invalid_response',
      status,
      `HTTP ${status}, ${code} with a malformed detail: ${describe(body)}`,
      extra,
    );
  }
  return err as KnownMeterstackError;
}

export function networkError(cause: unknown, attempts?: number): KnownMeterstackError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const deeper = cause instanceof Error && cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return new MeterstackError('network_error', 0, `${reason}${deeper}`, {
    cause,
    ...(attempts !== undefined && { attempts }),
  }) as KnownMeterstackError;
}
