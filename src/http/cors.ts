// Which browser pages may call the service (issue 10 item 2, spec-decisions 69). A page on another
// origin calls the v2 API with X-Service-API-Key, so the browser asks first (a preflight OPTIONS);
// @fastify/cors answers it before authentication and the rate limit, which it must not spend.
// An origin not allowed is refused here, preflight and actual request alike, with 403
// cors_origin_not_allowed in the envelope: the browser only needs the missing
// Access-Control-Allow-Origin, but the developer reading the network tab gets the reason and the fix.

import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_S,
  CORS_METHODS,
  type CorsPolicy,
  originAllowed,
  originRefused,
} from './cors-policy.ts';
import { sendError } from './envelope.ts';

/** Refuses origins not allowed, then lets @fastify/cors answer preflights and add its headers. */
export async function registerCors(
  app: FastifyInstance,
  policy: CorsPolicy,
  now: () => number,
): Promise<void> {
  // Added before the plugin's hook, so a refused preflight never reaches it.
  // A callback hook: the common request, without Origin, costs one call and no promise.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const origin = request.headers.origin;
    if (origin === undefined || originAllowed(policy, origin, request.headers.host)) return done();
    // Answered here, so `done` is not called: no later hook or route runs.
    sendError(reply, now(), originRefused(policy, origin));
  });
  await app.register(cors, {
    // Only allowed origins get this far: reflect the caller's (with Vary: Origin), or `*` for any.
    origin: policy.any ? '*' : true,
    methods: [...CORS_METHODS],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_S,
    // An OPTIONS without Origin (curl -X OPTIONS) gets the same 204 and Allow-* headers, not the
    // plugin's text/plain 400 outside the envelope.
    strictPreflight: false,
  });
}
