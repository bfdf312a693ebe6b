// The spec's response envelope, for successes and every error, in one place.

import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { toIstIso } from '../time/ist.ts';
import { ApiError, ERRORS, type ValidationItem } from './errors.ts';
import { noteErrorCode } from './request-events.ts';

export interface SuccessEnvelope<T> {
  success: true;
  data: T;
  message?: string;
  timestamp: string;
}

export function success<const T>(now: number, data: T, message?: string): SuccessEnvelope<T> {
  return message === undefined
    ? { success: true, data, timestamp: toIstIso(now) }
    : { success: true, data, message, timestamp: toIstIso(now) };
}

export function failure(now: number, err: ApiError) {
  return {
    success: false as const,
    error: { code: err.code, detail: err.detail },
    message: typeof err.detail === 'string' ? err.detail : ERRORS.validation_error.detail,
    timestamp: toIstIso(now),
  };
}

function locOf(instancePath: string, context: string | undefined): string[] {
  const parts = instancePath.split('/').filter((p) => p !== '');
  return parts.length > 0 ? parts : [context ?? 'body'];
}

/** Maps any error thrown in a route or by fastify itself onto the one error list. */
export function toApiError(err: FastifyError | Error): ApiError {
  if (err instanceof ApiError) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const context = (err as FastifyError).validationContext;
    const items: ValidationItem[] = err.validation.map((v) => ({
      loc: locOf(v.instancePath, context),
      msg: v.message ?? 'Input is not valid',
    }));
    return ApiError.validation(items);
  }
  const code = (err as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return ApiError.validation([{ loc: ['body'], msg: `Body should be valid JSON: ${err.message}` }]);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type');
  }
  const status = (err as FastifyError).statusCode;
  if (status === 400 && err instanceof SyntaxError) {
    return ApiError.validation([{ loc: ['body'], msg: `Body should be valid JSON: ${err.message}` }]);
  }
  return new ApiError('internal_error');
}

export function registerEnvelope(app: FastifyInstance, now: () => number): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    // [SEC-6] A path the file server will not serve (`..`, `%2e%2e`, `//`, `\`: non-canonical) is a
    // path with nothing there, answered and logged as any unrouted one: nothing about why is disclosed.
    if (err.code === 'FST_STATIC_FORBIDDEN_PATH') return reply.callNotFound();
    const apiErr = toApiError(err);
    if (apiErr.code === 'internal_error') request.log.error({ err }, 'unhandled error');
    sendError(reply, now(), apiErr);
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(
      reply,
      now(),
      new ApiError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`),
    );
  });
}

export function sendError(reply: FastifyReply, now: number, err: ApiError): FastifyReply {
  noteErrorCode(reply.request, err.code);
  return reply.code(err.status).type('application/json').send(failure(now, err));
}
