// [SEC-4] The headers every answer carries, set by the first step of the edge hook (edge.ts) and computed once: the console, the
// API, Swagger UI at /docs, error answers and 404s alike (edge-errors.ts adds them to the answers given
// before any hook). Written here rather than with @fastify/helmet (not a dependency, and we add none):
// five fixed headers need no library, and two precomputed sets are easier to check than helmet's options.
//
// The Content-Security-Policy allows only this origin, and no inline code but by its SHA-256, never
// 'unsafe-inline'. Two policies, picked by path: the console's one inline script is its import map
// (src/console/web/index.html; an import map cannot be loaded from a file); Swagger UI at /docs
// (@fastify/swagger-ui) loads its scripts and styles from /docs/static, and its one inline thing is
// the <style> of its logo, which React writes into the page: hashed from the installed file, so an
// upgrade of the package cannot leave a stale hash behind. `data:` images: its logo and the
// console's empty favicon.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { EdgeStep } from './edge.ts';

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** `'sha256-…'` of each inline `<script>` of a page, as CSP names them. */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) =>
    sha256(m[1] ?? ''),
  );
}

/** `'sha256-…'` of each `<style>` Swagger UI's standalone preset (its top bar and logo) renders. */
export async function swaggerUiStyleHashes(): Promise<string[]> {
  const pkg = createRequire(import.meta.url).resolve('@fastify/swagger-ui/package.json');
  const preset = await readFile(join(dirname(pkg), 'static/swagger-ui-standalone-preset.js'), 'utf8');
  return [...preset.matchAll(/createElement\("style",null,"([^"\\]*)"\)/g)].map((m) => sha256(m[1] ?? ''));
}

export interface InlineHashes {
  scripts?: readonly string[];
  styles?: readonly string[];
}

const listed = (hashes: readonly string[] = []) => hashes.map((h) => ` ${h}`).join('');

/** The policy: this origin only, the given inline scripts and styles by hash, nothing may frame a page. */
export function contentSecurityPolicy(inline: InlineHashes = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self'${listed(inline.scripts)}`,
    "script-src-attr 'none'",
    `style-src 'self'${listed(inline.styles)}`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export type Headers = Readonly<Record<string, string>>;

/** Every header of every answer. */
export function securityHeaders(inline: InlineHashes = {}): Headers {
  return Object.freeze({
    'content-security-policy': contentSecurityPolicy(inline),
    'x-content-type-options': 'nosniff',
    // No page of ours needs to tell another site where the reader came from.
    'referrer-policy': 'no-referrer',
    // frame-ancestors 'none' for browsers that predate it.
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  });
}

/**
 * The policy of an answer that is never a page (JSON, CSV): it may load nothing and be framed nowhere,
 * as GitHub's API answers. Short as well as strict: Node checks every header value on every answer.
 */
export const DATA_POLICY = "default-src 'none'; frame-ancestors 'none'";

/** The three sets: Swagger UI's under /docs, the data answers' under /api/ and /sim/, the pages'. */
export interface SecurityHeaders {
  page: Headers;
  docs: Headers;
  data: Headers;
}

export async function serviceSecurityHeaders(consoleScripts: readonly string[]): Promise<SecurityHeaders> {
  const page = securityHeaders({ scripts: consoleScripts });
  return {
    page,
    docs: securityHeaders({ styles: await swaggerUiStyleHashes() }),
    data: Object.freeze({ ...page, 'content-security-policy': DATA_POLICY }),
  };
}

/** The prefixes whose answers are data only: the v2 API and /sim/v1 (no HTML is served under them). */
const DATA_PREFIXES = ['/api/', '/sim/'] as const;

/**
 * The edge step (edge.ts) that gives the answer its headers, first of all, so every answer has them
 * whoever writes it later (a route, a plugin's file, the error and not-found handlers, a refusal of the
 * host check or CORS): fastify keeps a reply's headers from its onRequest hooks to the end.
 */
export function securityHeadersStep(headers: SecurityHeaders, docsPrefix: string): EdgeStep {
  return (request, reply) => {
    const url = request.url;
    reply.headers(
      url.startsWith(DATA_PREFIXES[0]) || url.startsWith(DATA_PREFIXES[1])
        ? headers.data
        : url.startsWith(docsPrefix)
          ? headers.docs
          : headers.page,
    );
    return false;
  };
}
