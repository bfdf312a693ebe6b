// [SEC-4] The headers every answer carries, set in one onSend hook and computed once: the console, the
// API, Swagger UI at /docs, error answers and 404s alike. Written here rather than with
// @fastify/helmet (not a dependency, and we add none): five fixed headers need no library, and one
// policy for every answer is easier to check than helmet's per-route options.
//
// The Content-Security-Policy allows only this origin. The console's one inline script is its import
// map (src/console/web/index.html; an import map cannot be loaded from a file): it is allowed by its
// SHA-256, never by 'unsafe-inline'. Swagger UI (@fastify/swagger-ui) loads its scripts and styles
// from /docs/static and needs no inline script or style (its static/csp.json lists none); `data:`
// images are its logo and the console's empty favicon.

import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** `'sha256-…'` of each inline `<script>` of a page, as CSP names them. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
    hashes.push(
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '', 'utf8')
        .digest('base64')}'`,
    );
  }
  return hashes;
}

/** The policy: this origin only, the given inline scripts by hash, nothing may frame a page. */
export function contentSecurityPolicy(scriptHashes: readonly string[] = []): string {
  return [
    "default-src 'self'",
    `script-src 'self'${scriptHashes.map((h) => ` ${h}`).join('')}`,
    "script-src-attr 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Every header of every answer. */
export function securityHeaders(scriptHashes: readonly string[] = []): Readonly<Record<string, string>> {
  return Object.freeze({
    'content-security-policy': contentSecurityPolicy(scriptHashes),
    'x-content-type-options': 'nosniff',
    // No page of ours needs to tell another site where the reader came from.
    'referrer-policy': 'no-referrer',
    // frame-ancestors 'none' for browsers that predate it.
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  });
}

/** Adds the hook: onSend, so that every answer gets them, whoever wrote it (a route, a plugin's file,
 * the error and not-found handlers). */
export function registerSecurityHeaders(
  app: FastifyInstance,
  headers: Readonly<Record<string, string>>,
): void {
  app.addHook(
    'onSend',
    (
      _request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (e: null, p: unknown) => void,
    ) => {
      reply.headers(headers);
      done(null, payload);
    },
  );
}
