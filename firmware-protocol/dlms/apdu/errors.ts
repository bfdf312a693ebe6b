// Decode errors and the result codes of the xDLMS services, one list each. Rule numbers refer to
// ../APDU.md. A decoder never throws on input: it answers a tagged result whose error names the rule.

export type DecodeErrorCode =
  | 'truncated'
  | 'bad_length'
  | 'bad_tag'
  | 'bad_value'
  | 'too_deep'
  | 'trailing'
  | 'unsupported';

export interface DecodeError {
  code: DecodeErrorCode;
  /** The rule the input breaks, e.g. `AX-1.2`. */
  rule: string;
  message: string;
  /** Byte offset where the problem was found. */
  offset: number;
}

/** [AX-1.1] What every decoder answers. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: DecodeError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });

/** Thrown only inside a decoder and caught at its entry point; it never leaves a module. */
export class DecodeFailure extends Error {
  constructor(readonly error: DecodeError) {
    super(error.message);
  }
}

export function fail(code: DecodeErrorCode, rule: string, message: string, offset: number): never {
  throw new DecodeFailure({ code, rule, message, offset });
}

/** Runs a decoder that throws DecodeFailure, and answers a tagged result instead [AX-1.4]. */
export function attempt<T>(decode: () => T): Result<T> {
  try {
    return ok(decode());
  } catch (e) {
    if (e instanceof DecodeFailure) return { ok: false, error: e.error };
    // A RangeError from a DataView or similar would be a bug in the bounds checks; report it as one.
    const message = e instanceof Error ? e.message : String(e);
    return {
      ok: false,
      error: { code: 'bad_value', rule: 'AX-1.4', message: `internal: ${message}`, offset: 0 },
    };
  }
}

/**
 * [AP-9.1] Data-Access-Result (GET, SET) and Action-Result (ACTION) share their numbers; where the two
 * lists name a number differently both names are given. Any other value is decoded as it is and named
 * `unknown-<n>`.
 */
export const ACCESS_RESULTS: readonly { code: number; name: string; action?: string }[] = [
  { code: 0, name: 'success' },
  { code: 1, name: 'hardware-fault' },
  { code: 2, name: 'temporary-failure' },
  { code: 3, name: 'read-write-denied' },
  { code: 4, name: 'object-undefined' },
  { code: 9, name: 'object-class-inconsistent' },
  { code: 11, name: 'object-unavailable' },
  { code: 12, name: 'type-unmatched' },
  { code: 13, name: 'scope-of-access-violated' },
  { code: 14, name: 'data-block-unavailable' },
  { code: 15, name: 'long-get-aborted', action: 'long-action-aborted' },
  { code: 16, name: 'no-long-get-in-progress', action: 'no-long-action-in-progress' },
  { code: 17, name: 'long-set-aborted' },
  { code: 18, name: 'no-long-set-in-progress' },
  { code: 19, name: 'data-block-number-invalid' },
  { code: 250, name: 'other-reason' },
];

export const DAR = {
  success: 0,
  hardwareFault: 1,
  temporaryFailure: 2,
  readWriteDenied: 3,
  objectUndefined: 4,
  objectClassInconsistent: 9,
  objectUnavailable: 11,
  typeUnmatched: 12,
  scopeOfAccessViolated: 13,
  dataBlockUnavailable: 14,
  longGetAborted: 15,
  noLongGetInProgress: 16,
  longSetAborted: 17,
  noLongSetInProgress: 18,
  dataBlockNumberInvalid: 19,
  otherReason: 250,
} as const;

/** The name of a data-access-result or (with `action`) an action-result [AP-9.1]. */
export function accessResultName(code: number, action = false): string {
  const row = ACCESS_RESULTS.find((r) => r.code === code);
  if (!row) return `unknown-${code}`;
  return (action && row.action) || row.name;
}

/** [AP-8.1] ExceptionResponse state-error values. */
export const STATE_ERRORS = { 1: 'service-not-allowed', 2: 'service-unknown' } as const;

/** [AP-8.1] ExceptionResponse service-error values. */
export const SERVICE_ERRORS = {
  1: 'operation-not-possible',
  2: 'service-not-supported',
  3: 'other-reason',
  4: 'pdu-too-long',
  5: 'deciphering-error',
  6: 'invocation-counter-error',
} as const;
