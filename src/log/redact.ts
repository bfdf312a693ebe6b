// [SEC-1] The one redaction of secrets, applied where text leaves the process: every event as the bus
// hands it out (journal, durable events, SSE, the log view) and every line the logger writes. Call
// sites never redact for themselves: a secret can arrive wherever a client types text (a key in an
// unexpected query parameter or an unrouted path, a password typed into an MQTT username), so the
// boundary treats every string alike. Pure: no I/O, no clock.

/** What stands in for a secret. */
export const HIDDEN = '***';

/** Known secrets shorter than this are not searched for by value (a 4-character --api-key would blank
 * out ordinary words); the patterns still apply to them. */
export const MIN_KNOWN_SECRET = 8;

/**
 * What looks like a secret, whoever typed it and wherever it stands:
 * - the tokens meterstack makes: API keys `msk_…`, meters' MQTT secrets `mqs_…`, generated admin tokens
 *   `adm_…` (also with the `_` %-encoded, once or twice, as in a URL);
 * - a URL's password: `scheme://user:password@`;
 * - `name=value` where the name says key, token, secret, password or auth (query strings, form
 *   bodies), and the credential headers quoted in a message (`X-Admin-Token: …`);
 * - `Bearer …` and `Basic …` credentials.
 */
/**
 * Each pattern with a guard: plain `includes` checks (a few ns) that every match needs, so that the
 * common string (a meter id, a route, a URL without a secret) runs no regular expression at all.
 */
const RULES: { guard: (s: string) => boolean; re: RegExp; keep: (m: string, kept: string) => string }[] = [
  {
    guard: (s) => s.includes('_') || s.includes('%'),
    // `_` as typed, %-encoded once (%5F) or more (%255F)
    re: /(?<![A-Za-z0-9])(msk|mqs|adm)(?:_|%(?:25)*5[Ff])[A-Za-z0-9_%-]+/gi,
    keep: (_m, prefix) => `${prefix}_${HIDDEN}`,
  },
  {
    guard: (s) => s.includes('@') && s.includes('//'),
    re: /(\/\/[^\s:/@]*):[^\s@/]+@/g,
    keep: (_m, user) => `${user}:${HIDDEN}@`,
  },
  {
    guard: (s) => s.includes('=') || s.includes('%3D') || s.includes('%3d'),
    re: /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]*(?:key|token|secret|passw|pwd|auth)[A-Za-z0-9_.-]*(?:=|%3D))(?!\*\*\*)[^\s&#;,'"]+/gi,
    keep: (_m, name) => `${name}${HIDDEN}`,
  },
  {
    guard: (s) => s.includes(':') && HEADER_HINT.test(s),
    re: /\b((?:x-admin-token|x-service-api-key|(?:proxy-)?authorization)\s*:\s*)(?!\*\*\*)(?:(?:bearer|basic|digest)\s+)?[^\s,'"]+/gi,
    keep: (_m, name) => `${name}${HIDDEN}`,
  },
  {
    guard: (s) => s.includes(' ') && SCHEME_HINT.test(s),
    re: /\b((?:bearer|basic)\s+)(?!\*\*\*)[A-Za-z0-9._~+/=-]{8,}/gi,
    keep: (_m, scheme) => `${scheme}${HIDDEN}`,
  },
];
const HEADER_HINT = /token|key|authoriz/i;
const SCHEME_HINT = /bearer|basic/i;

export type Redact = (text: string) => string;

/** Clean strings remembered per redactor, and the longest remembered (a log line is not worth it). */
const REMEMBERED_CLEAN = 4096;
const REMEMBERED_LENGTH = 256;

/**
 * The redaction of one running service: the patterns above, plus the secrets it was given (the admin
 * token and the demo key from a flag, its broker login's password), as typed and %-encoded.
 */
export function secretRedactor(known: Iterable<string | undefined> = []): Redact {
  const values = new Set<string>();
  for (const v of known) {
    if (v === undefined || v.length < MIN_KNOWN_SECRET) continue;
    values.add(v);
    values.add(encodeURIComponent(v));
    values.add(encodeURIComponent(encodeURIComponent(v)));
  }
  // One alternation, longest first, so a secret that contains another is hidden whole.
  const byLength = [...values].sort((a, b) => b.length - a.length);
  const knownRe =
    byLength.length === 0
      ? null
      : new RegExp(byLength.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  // Strings found clean, remembered: the same few (routes, URLs, meter ids) come in every event, and a
  // map lookup is cheaper than the scans. Only clean ones, so no secret is kept here. The remembered
  // copy is what comes back: a view that keeps strings (the journal keeps 10,000 URLs) then holds one
  // long-lived copy, not each request's fresh one, which the garbage collector would have to promote.
  const clean = new Map<string, string>();
  return (text) => {
    // Nothing shorter than `msk_x` can hold a secret.
    if (text.length < 5) return text;
    const known = clean.get(text);
    if (known !== undefined) return known;
    let out = knownRe !== null && text.length >= MIN_KNOWN_SECRET ? text.replace(knownRe, HIDDEN) : text;
    for (const rule of RULES) if (rule.guard(out)) out = out.replace(rule.re, rule.keep);
    if (out === text && text.length <= REMEMBERED_LENGTH) {
      if (clean.size >= REMEMBERED_CLEAN) clean.clear();
      clean.set(text, text);
    }
    return out;
  };
}

/**
 * `value` with every string in it redacted, copied only where something changed: an event without a
 * secret is handed on as it came (no allocation on the common path).
 */
export function redactDeep<T>(value: T, redact: Redact): T {
  if (typeof value === 'string') return redact(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      const r = redactDeep(item, redact);
      if (r !== item) {
        copy ??= value.slice();
        copy[i] = r;
      }
    }
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | null = null;
  const obj = value as Record<string, unknown>;
  for (const key in obj) {
    const item = obj[key];
    const r = redactDeep(item, redact);
    if (r !== item) {
      copy ??= { ...obj };
      copy[key] = r;
    }
  }
  return (copy ?? value) as T;
}

/** The secrets a URL carries: its password (and a `password=` parameter is caught by the pattern). */
export function urlPassword(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const p = new URL(url).password;
    return p === '' ? undefined : decodeURIComponent(p);
  } catch {
    return undefined;
  }
}

/** The secrets a service's configuration holds: the admin token, the demo key, URLs' passwords. */
export function secretsOf(config: {
  adminToken?: string;
  apiKey?: string;
  broker?: string;
  redis?: string;
  db?: string;
}): (string | undefined)[] {
  return [
    config.adminToken,
    config.apiKey,
    urlPassword(config.broker),
    urlPassword(config.redis),
    urlPassword(config.db),
  ];
}
