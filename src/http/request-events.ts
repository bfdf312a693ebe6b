// One `http.request` event per answered request (issue 9 §1), from one onResponse hook: method, route
// pattern, path and query, status, latency, the account when an API key was recognised, and the error
// code of an error answer. Never a secret: the key and the admin token travel in headers, which are not
// read here; a key in the path (DELETE /sim/v1/keys/:api_key) and query parameters named like a secret
// are blanked out.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EventBus } from '../events/bus.ts';
import type { EventData } from '../events/schemas.ts';

/** Route parameters that carry a secret, and what stands in for them in `url`. */
const SECRET_PARAMS = ['api_key'] as const;
const HIDDEN = '***';
const SECRET_QUERY_NAME = /key|token|secret|passw/i;

/** The error code of each error answer, set where the envelope is written (envelope.ts). */
const errorCodes = new WeakMap<FastifyRequest, string>();

export function noteErrorCode(request: FastifyRequest, code: string): void {
  errorCodes.set(request, code);
}

/** `url` (path and query) with secret path parameters and secret-looking query values blanked out. */
export function publicUrl(url: string, params: unknown): string {
  let out = url;
  if (params !== null && typeof params === 'object') {
    for (const name of SECRET_PARAMS) {
      const value = (params as Record<string, unknown>)[name];
      if (typeof value !== 'string' || value === '') continue;
      const q = out.indexOf('?');
      const path = q < 0 ? out : out.slice(0, q);
      const hidden = path
        .split('/')
        .map((seg) => (seg === value || safeDecode(seg) === value ? HIDDEN : seg))
        .join('/');
      out = q < 0 ? hidden : hidden + out.slice(q);
    }
  }
  const q = out.indexOf('?');
  if (q < 0) return out;
  const query = out
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && SECRET_QUERY_NAME.test(name) ? `${pair.slice(0, eq)}=${HIDDEN}` : pair;
    })
    .join('&');
  return `${out.slice(0, q)}?${query}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Requests the event views make to read themselves are not events: a journal poll or a stream would
 * otherwise put a new event in the journal at every read, and the console's own files are no news.
 */
export function observed(route: string): boolean {
  return !(route === '/' || route.startsWith('/console/') || route.startsWith('/sim/v1/events'));
}

/** Adds the hook that emits `http.request` for every answered request but the views' own reads. */
export function registerRequestEvents(app: FastifyInstance, bus: EventBus): void {
  if (!bus.enabled) return;
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const account = (request as { account?: { id: number } }).account;
    const code = reply.statusCode >= 400 ? errorCodes.get(request) : undefined;
    const url = request.url;
    const route = request.routeOptions.url ?? '(no route)';
    // A refused or missing console file is news like any other 4xx [SEC-6]; a served one is not.
    if (!observed(route) && reply.statusCode < 400) return done();
    // A browser's preflight (answered by cors.ts) precedes a request that is itself an event; a
    // refused one (403) is told.
    if (request.method === 'OPTIONS' && reply.statusCode < 400) return done();
    const data: EventData<'http.request'> = {
      method: request.method,
      route,
      // Only a URL that could hold a secret is rewritten: the common GET costs nothing more.
      url: url.includes('?') || route.includes(':api_key') ? publicUrl(url, request.params) : url,
      status: reply.statusCode,
      latency_ms: reply.elapsedTime,
      account_id: account?.id ?? null,
    };
    // Set, not spread in: one object of one shape per event.
    if (code !== undefined) data.code = code;
    // [EXT-7] Numbered and kept as fields: no event object unless a view hands one on.
    bus.request(data, account?.id);
    done();
  });
}
