// The one list of API errors: code, HTTP status and default detail. Every route throws ApiError with a
// code from here; the error handler (envelope.ts) turns it into the spec's envelope.

export const ERRORS = {
  authentication_error: {
    status: 401,
    detail:
      'Authentication required: send a valid API key in the X-Service-API-Key header (not a Bearer Authorization header).',
  },
  admin_authentication_error: { status: 401, detail: 'Send the admin token in the X-Admin-Token header.' },
  forbidden: { status: 403, detail: 'Not permitted.' },
  // A browser page on an origin `serve --cors` does not allow (src/http/cors.ts, spec-decisions 69).
  cors_origin_not_allowed: { status: 403, detail: 'This origin may not call the service (see --cors).' },
  // [SEC-5] A Host header the service does not answer to (DNS rebinding; src/http/host-policy.ts,
  // spec-decisions 143): 421 Misdirected Request, the status HTTP has for exactly this.
  host_not_allowed: {
    status: 421,
    detail: 'This service does not answer to that Host (see --allowed-hosts).',
  },
  device_not_found: { status: 400, detail: 'Device not found.' },
  device_not_in_space: { status: 417, detail: 'Device is not associated with any space.' },
  not_your_space: { status: 400, detail: 'Space does not belong to your account.' },
  validation_error: { status: 422, detail: 'Request validation failed.' },
  device_offline: { status: 400, detail: 'Device is offline; check is_online and retry with backoff.' },
  device_timeout: { status: 400, detail: 'Device did not answer in time; retry with backoff.' },
  device_rejected: { status: 400, detail: 'Device rejected the operation.' },
  properties_unreadable: { status: 400, detail: 'Device properties unreadable.' },
  rate_limit_exceeded: { status: 429, detail: 'Rate limit exceeded.' },
  not_found: { status: 404, detail: 'Not found.' },
  method_not_allowed: { status: 405, detail: 'Method not allowed.' },
  conflict: { status: 409, detail: 'Conflict.' },
  payload_too_large: { status: 413, detail: 'Request body too large.' },
  unsupported_media_type: { status: 415, detail: 'Send the body as application/json.' },
  service_unavailable: { status: 503, detail: 'Service is starting or stopping.' },
  internal_error: { status: 500, detail: 'Internal error.' },
  // Answered before routing (src/http/edge-errors.ts), still in the envelope (spec-decisions 43).
  malformed_url: { status: 400, detail: 'The URL is malformed (bad %-encoding or not UTF-8).' },
  bad_request: { status: 400, detail: 'Malformed HTTP request.' },
  request_timeout: { status: 408, detail: 'The request was not received in time.' },
  uri_too_long: { status: 414, detail: 'Request URI too long.' },
  headers_too_large: { status: 431, detail: 'Request line and headers too large.' },
} as const satisfies Record<string, { status: number; detail: string }>;

/**
 * The 401s' words when a credential was sent but is not right (the ERRORS details above are for none
 * sent): same code and status, so a client's handling is unchanged; no word on why (unknown, expired,
 * revoked), so nothing tells which keys exist (spec §5.3, spec-decisions 22, 200).
 */
export const WRONG_CREDENTIAL = {
  authentication_error:
    'The API key in the X-Service-API-Key header is not valid: unknown, expired or revoked (the key goes in that header, not a Bearer Authorization header).',
  admin_authentication_error:
    "The admin token in the X-Admin-Token header is not this service's: use the one its start-up banner shows (or that --admin-token or METERSTACK_ADMIN_TOKEN gave it).",
} as const satisfies Partial<Record<ErrorCode, string>>;

export type ErrorCode = keyof typeof ERRORS;

export interface ValidationItem {
  loc: string[];
  msg: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string | ValidationItem[];

  constructor(code: ErrorCode, detail?: string | ValidationItem[]) {
    const d = detail ?? ERRORS[code].detail;
    super(typeof d === 'string' ? d : d.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.code = code;
    this.status = ERRORS[code].status;
    this.detail = d;
  }

  static validation(items: ValidationItem[]): ApiError {
    return new ApiError('validation_error', items);
  }
}
