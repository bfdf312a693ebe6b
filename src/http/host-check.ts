// [SEC-5] The step of the edge hook (edge.ts) that refuses a Host this service does not answer to (host-policy.ts
// says which), before CORS, authentication or any route: 421 host_not_allowed in the envelope, and
// the request logged as any other. The decision per distinct Host value is kept, so the common
// request costs one Map lookup.

import type { EdgeStep } from './edge.ts';
import { sendError } from './envelope.ts';
import { ApiError } from './errors.ts';
import { type HostPolicy, hostAllowed, hostRefused } from './host-policy.ts';

/** Distinct Host values remembered; past this the memory starts over (a client inventing names). */
const REMEMBERED = 256;

/** The step, or null when any Host is answered (`--allowed-hosts '*'`). */
export function hostCheckStep(policy: HostPolicy, now: () => number): EdgeStep | null {
  if (policy.any) return null;
  const seen = new Map<string, boolean>();
  return (request, reply) => {
    const header = request.headers.host;
    if (header === undefined) {
      // HTTP/1.0 may leave it out (no browser does); HTTP/1.1 must send it (RFC 9112 §3.2).
      if (request.raw.httpVersion === '1.0') return false;
      sendError(reply, now(), new ApiError('bad_request', 'An HTTP/1.1 request needs a Host header.'));
      return true;
    }
    let ok = seen.get(header);
    if (ok === undefined) {
      ok = hostAllowed(policy, header);
      if (seen.size >= REMEMBERED) seen.clear();
      seen.set(header, ok);
    }
    if (ok) return false;
    sendError(reply, now(), hostRefused(header));
    return true;
  };
}
