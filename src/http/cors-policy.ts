// Which browser origins may call the service (issue 10 item 2, spec-decisions 69), as pure data and
// functions: the `--cors` value checked and normalized, and the one decision per request. No fastify
// here, so the CLI's flag parsing does not load the HTTP stack. cors.ts applies it.

import { ApiError } from './errors.ts';

/**
 * Which origins may call: `localhost` (the default: http(s)://localhost, 127.0.0.1 and [::1], any
 * port), `*` (any), `off` (none), or a list of exact origins, `https://app.example.com`, which may
 * name `localhost` to keep the default ones too.
 */
export type CorsOrigins = 'localhost' | '*' | 'off' | readonly string[];

/** CorsOrigins checked and normalized. */
export interface CorsPolicy {
  readonly any: boolean;
  readonly localhost: boolean;
  /** Serialized origins (`URL.origin`: lower-case host, no default port, no slash). */
  readonly origins: ReadonlySet<string>;
}

/** Every method a route of the API uses (HEAD: fastify's for each GET). */
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'] as const;
/** The request headers a page may send: the two secrets, JSON bodies, and the stream's resume point. */
export const CORS_ALLOWED_HEADERS = ['X-Service-API-Key', 'X-Admin-Token', 'Content-Type', 'Last-Event-ID'];
/** The response headers a page may read: those the rate limit (api/v2/plugin.ts) and SSE send. */
export const CORS_EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'Retry-After',
];
/** How long a browser may reuse a preflight's answer (Chromium caps it at 7,200 s). */
export const CORS_MAX_AGE_S = 600;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** An Origin header longer than this is cut in the refusal's detail (it is the client's text). */
const SHOWN_ORIGIN_CHARS = 200;

/** Checks and normalizes `setting`; a bad origin is a TypeError naming it. */
export function corsPolicy(setting: CorsOrigins = 'localhost'): CorsPolicy {
  if (setting === '*') return { any: true, localhost: true, origins: new Set() };
  if (setting === 'off') return { any: false, localhost: false, origins: new Set() };
  if (setting === 'localhost') return { any: false, localhost: true, origins: new Set() };
  if (!Array.isArray(setting) || setting.length === 0) {
    throw new TypeError(`cors must be 'localhost', '*', 'off' or a list of origins, got ${String(setting)}`);
  }
  let localhost = false;
  const origins = new Set<string>();
  for (const item of setting as readonly string[]) {
    if (item === 'localhost') localhost = true;
    else origins.add(exactOrigin(item));
  }
  return { any: false, localhost, origins };
}

/** A `--cors` value: `*`, `off`, `localhost` or comma-separated origins. */
export function parseCorsFlag(raw: string): CorsOrigins {
  const value = raw.trim();
  if (value === '*' || value === 'off' || value === 'localhost') return value;
  const items = value.split(',').map((s) => s.trim());
  if (items.some((s) => s === '*' || s === 'off')) {
    throw new TypeError(`'*' and 'off' stand alone, not in a list: got '${raw}'`);
  }
  return items;
}

function exactOrigin(item: string): string {
  let url: URL | null = null;
  try {
    url = new URL(item);
  } catch {
    // reported below
  }
  // scheme://host[:port], a trailing slash forgiven: what a browser sends has no path at all.
  const bare =
    url !== null &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    /^[a-z]+:\/\/[^/?#]+\/?$/i.test(item);
  if (!bare || url === null) {
    throw new TypeError(
      `'${item}' is not an origin: write scheme://host[:port] with no path, e.g. https://app.example.com`,
    );
  }
  return url.origin;
}

/** Whether a page on `origin` may call a server that the request reached as `host` (its Host header). */
export function originAllowed(policy: CorsPolicy, origin: string, host: string | undefined): boolean {
  if (policy.any || policy.origins.has(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null` (a sandboxed frame, a file:// page) and junk
  }
  // A serialized origin has no path; anything else is not one a browser sends.
  if (url.origin !== origin) return false;
  // The service's own pages (the console at /) send Origin on their POSTs, under whatever name the
  // browser reached it by (a LAN address with --host 0.0.0.0): the same origin is always allowed.
  if (host !== undefined && sameHost(url, host)) return true;
  return (
    policy.localhost &&
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    LOOPBACK_HOSTS.has(url.hostname)
  );
}

/** `origin.host` has no default port; a Host header may carry it. */
function sameHost(origin: URL, host: string): boolean {
  const h = host.toLowerCase();
  return h === origin.host || h === `${origin.host}:${origin.protocol === 'https:' ? 443 : 80}`;
}

function describePolicy(policy: CorsPolicy): string {
  const names = [
    ...(policy.localhost ? ['localhost, 127.0.0.1 and [::1] on any port'] : []),
    ...policy.origins,
  ];
  return names.length === 0 ? 'none (--cors off)' : names.join(', ');
}

/** The refusal's error: who was refused, what is allowed, and how to allow more. */
export function originRefused(policy: CorsPolicy, origin: string): ApiError {
  const shown = origin.length > SHOWN_ORIGIN_CHARS ? `${origin.slice(0, SHOWN_ORIGIN_CHARS)}…` : origin;
  return new ApiError(
    'cors_origin_not_allowed',
    `Origin ${shown} may not call this service; allowed: ${describePolicy(policy)}. ` +
      'Start it with --cors <origins> (METERSTACK_CORS) to allow more.',
  );
}
