// The documented responses of /sim/v1 (not the spec: the simulation control API). `data` is
// documented as an object or list of objects: its fields are listed in the README's /sim/v1 table
// and the decisions that introduced them, and QA scripts read them by name.

import { z } from 'zod';
import { errorResponses, timestampSchema } from '../http/error-schemas.ts';
import type { ErrorCode } from '../http/errors.ts';

const ANY_ROUTE: ErrorCode[] = ['admin_authentication_error', 'internal_error'];
export const BODY: ErrorCode[] = ['validation_error', 'payload_too_large', 'unsupported_media_type'];
export const PATH_PARAM: ErrorCode[] = ['malformed_url', 'uri_too_long', 'validation_error'];
/** A virtual meter's route: none by that id (404), external or still backfilling (409). */
export const VIRTUAL_METER: ErrorCode[] = [...PATH_PARAM, 'not_found', 'conflict'];

export const object = z.record(z.string(), z.unknown());
export const list = z.array(object);

export interface SimResponses {
  data: z.ZodType;
  /** 201 for a route that creates something. */
  status?: 200 | 201;
  errors?: ErrorCode[];
}

export function simResponses(r: SimResponses) {
  const ok = z
    .object({
      success: z.literal(true),
      data: r.data,
      message: z.string().optional(),
      timestamp: timestampSchema,
    })
    .meta({ 'x-response-description': r.status === 201 ? 'Created' : 'Success' });
  return { [r.status ?? 200]: ok, ...errorResponses([...ANY_ROUTE, ...(r.errors ?? [])]) };
}
