// Answers fastify and node give before any route or hook runs, put in the spec's envelope with a code
// from the one error list (spec-decisions 43): fastify's router refuses a path segment over
// `maxParamLength` (414) or a malformed %-encoding (400, FST_ERR_BAD_URL); node's HTTP parser refuses
// headers over --max-http-header-size (431), a request that times out (408) and anything unparsable
// (400) on the socket itself, where only raw bytes can be written back.

import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { failure, sendError } from './envelope.ts';
import { ApiError } from './errors.ts';

/** Longest path segment the router matches (fastify's default); a longer one is 414 uri_too_long. */
export const MAX_PARAM_LENGTH = 100;

function frameworkError(err: FastifyError): ApiError {
  switch (err.code) {
    case 'FST_ERR_BAD_URL':
      return new ApiError(
        'malformed_url',
        'The URL is malformed: a %-escape is invalid or does not decode to UTF-8.',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError(
        'uri_too_long',
        `Request URI too long: a path segment exceeds ${MAX_PARAM_LENGTH} characters.`,
      );
    default:
      return new ApiError('internal_error');
  }
}

function socketError(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError(
        'headers_too_large',
        'Request line and headers too large: together they may be at most 16 KiB.',
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return new ApiError('request_timeout');
    default:
      return new ApiError('bad_request');
  }
}

/** The fastify options that route these answers through the envelope; `now` stamps them. */
export function edgeErrorOptions(
  now: () => number,
  /** [SEC-4] The security headers: these answers come before any hook that would set them. */
  headers: Readonly<Record<string, string>> = {},
): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> {
  const rawHeaders = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return {
    frameworkErrors: (err: FastifyError, _req: FastifyRequest, reply: FastifyReply) => {
      sendError(reply.headers(headers), now(), frameworkError(err));
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: Socket) => {
      // A reset connection has no one to answer (as fastify's default handler).
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) {
        const apiErr = socketError(err);
        const body = JSON.stringify(failure(now(), apiErr));
        socket.write(
          `HTTP/1.1 ${apiErr.status} ${reasonPhrase(apiErr.status)}\r\nContent-Type: application/json\r\n${rawHeaders}` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(err);
    },
  };
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
};

function reasonPhrase(status: number): string {
  return REASONS[status] ?? 'Error';
}
