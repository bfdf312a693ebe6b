// [SEC-5] The one onRequest hook that refuses a Host this service does not answer to (host-policy.ts
// says which), before CORS, authentication or any route: 421 host_not_allowed in the envelope, and
// the request logged as any other. The decision per distinct Host value is kept, so the common
// request costs one Map lookup.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './envelope.ts';
import { ApiError } from './errors.ts';
import { type HostPolicy, hostAllowed, hostRefused } from './host-policy.ts';

/** Distinct Host values remembered; past this the memory starts over (a client inventing names). */
const REMEMBERED = 256;

export function registerHostCheck(app: FastifyInstance, policy: HostPolicy, now: () => number): void {
  if (policy.any) return;
  const seen = new Map<string, boolean>();
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const header = request.headers.host;
    if (header === undefined) {
      // HTTP/1.0 may leave it out (no browser does); HTTP/1.1 must send it (RFC 9112 §3.2).
      if (request.raw.httpVersion === '1.0') return done();
      sendError(reply, now(), new ApiError('bad_request', 'An HTTP/1.1 request needs a Host header.'));
      return;
    }
    let ok = seen.get(header);
    if (ok === undefined) {
      ok = hostAllowed(policy, header);
      if (seen.size >= REMEMBERED) seen.clear();
      seen.set(header, ok);
    }
    if (ok) return done();
    // Answered here, so `done` is not called: no later hook or route runs.
    sendError(reply, now(), hostRefused(header));
  });
}
