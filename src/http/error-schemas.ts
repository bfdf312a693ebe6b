// The error envelope as the OpenAPI document names it (Error, ValidationItem), and the documented
// error responses of a route, built from the one error list (errors.ts): a route names the codes it
// can answer, and each status gets the envelope, a description listing its codes, and one example
// per code. Documentation only: responses are not validated at run time (see app.ts).

import { z } from 'zod';
import { ERRORS, type ErrorCode } from './errors.ts';

const CODES = Object.keys(ERRORS) as [ErrorCode, ...ErrorCode[]];

export const validationItemSchema = z
  .object({
    loc: z.array(z.string()).describe('the field: `[name]` for a body field or query parameter, `[body]`'),
    msg: z.string(),
  })
  .meta({ id: 'ValidationItem', example: { loc: ['property_id'], msg: 'Invalid property ID' } });

export const errorSchema = z
  .object({
    code: z.enum(CODES).describe('one of the error list (src/http/errors.ts); the HTTP status follows it'),
    detail: z
      .union([z.string(), z.array(validationItemSchema)])
      .describe('a sentence, or for validation_error the list of what was wrong'),
  })
  .meta({ id: 'Error', example: { code: 'device_not_found', detail: 'Device not found.' } });

export const timestampSchema = z
  .string()
  .describe('when the answer was made: ISO 8601 with milliseconds, +05:30 (Asia/Kolkata)');

/** Headers the v2 API's rate limit sends (IETF draft RateLimit fields, spec §8). */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { type: 'integer', description: 'requests allowed per window' },
  'RateLimit-Remaining': { type: 'integer', description: 'requests left in this window' },
  'RateLimit-Reset': { type: 'integer', description: 'seconds until the window resets' },
  'RateLimit-Policy': { type: 'string', description: 'the policy, e.g. `100;w=60`' },
} as const;

const RETRY_AFTER = { 'Retry-After': { type: 'integer', description: 'seconds to wait before retrying' } };

function example(code: ErrorCode) {
  const detail =
    code === 'validation_error'
      ? [{ loc: ['ssid'], msg: 'String should have at most 32 characters' }]
      : ERRORS[code].detail;
  return {
    summary: code,
    value: {
      success: false,
      error: { code, detail },
      message: typeof detail === 'string' ? detail : ERRORS.validation_error.detail,
      timestamp: '2026-01-15T10:30:00.000+05:30',
    },
  };
}

function errorEnvelope(status: number, codes: ErrorCode[]) {
  const headers = status === 429 ? { ...RATE_LIMIT_HEADERS, ...RETRY_AFTER } : undefined;
  return z
    .object({
      success: z.literal(false),
      error: errorSchema,
      message: z.string().optional(),
      timestamp: timestampSchema,
    })
    .meta({
      'x-response-description': `Error: ${codes.map((c) => `\`${c}\``).join(', ')}`,
      'x-examples': Object.fromEntries(codes.map((c) => [c, example(c)])),
      ...(headers ? { headers } : {}),
    });
}

/** The error responses for these codes, one per HTTP status (fastify's `schema.response` form). */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, z.ZodType> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].map(([status, list]) => [status, errorEnvelope(status, list)]));
}
