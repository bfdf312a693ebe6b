// Which browser pages may call the service (issue 10 item 2, spec-decisions 69). A page on another
// origin calls the v2 API with X-Service-API-Key, so the browser asks first (a preflight OPTIONS),
// answered here before authentication and the rate limit, which it must not spend.
// An origin not allowed is refused here, preflight and actual request alike, with 403
// cors_origin_not_allowed in the envelope: the browser only needs the missing
// Access-Control-Allow-Origin, but the developer reading the network tab gets the reason and the fix.
//
// The headers are those @fastify/cors wrote with the options this file used to give it (origin
// reflected, or `*` for any; strictPreflight off), written by one onRequest hook from values computed
// once (issue 19 step 7): the plugin's hook rebuilt its options, its origin callback and its Vary
// header on every request, a real share of a cached GET.

import type { FastifyInstance } from 'fastify';
import {
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  CORS_MAX_AGE_S,
  CORS_METHODS,
  type CorsPolicy,
  originAllowed,
  originRefused,
} from './cors-policy.ts';
import type { EdgeStep } from './edge.ts';
import { sendError } from './envelope.ts';

const EXPOSE = CORS_EXPOSED_HEADERS.join(', ');
const ALLOW_METHODS = CORS_METHODS.join(', ');
const ALLOW_HEADERS = CORS_ALLOWED_HEADERS.join(', ');
const MAX_AGE = String(CORS_MAX_AGE_S);

/** The step that refuses origins not allowed, answers preflights and adds the CORS headers. */
export function corsStep(policy: CorsPolicy, now: () => number): EdgeStep {
  // The common request, without Origin, costs a few headers.
  return (request, reply) => {
    const origin = request.headers.origin;
    if (origin !== undefined && !originAllowed(policy, origin, request.headers.host)) {
      sendError(reply, now(), originRefused(policy, origin));
      return true;
    }
    if (policy.any) {
      reply.header('access-control-allow-origin', '*');
    } else {
      // The answer depends on Origin: caches must key on it (fetch spec, "CORS protocol and HTTP caches").
      reply.header('vary', 'Origin');
      if (origin) reply.header('access-control-allow-origin', origin);
    }
    reply.header('access-control-expose-headers', EXPOSE);
    if (request.method !== 'OPTIONS') return false;
    // A preflight, with or without Origin (curl -X OPTIONS gets the same 204, not a 400 outside the
    // envelope): answered here, before authentication and the rate limit.
    reply
      .header('access-control-allow-methods', ALLOW_METHODS)
      .header('access-control-allow-headers', ALLOW_HEADERS)
      .header('access-control-max-age', MAX_AGE)
      .code(204)
      .header('content-length', '0')
      .send();
    return true;
  };
}

/** Routes every OPTIONS request, so that the edge hook sees it: its CORS step answers them all. */
export function registerPreflightRoute(app: FastifyInstance): void {
  app.options('*', { schema: { hide: true } }, (_request, reply) => {
    reply.callNotFound();
  });
}
