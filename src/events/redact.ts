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
 *   `adm_…` (also with the `_` %-encoded, as in a URL);
 * - a URL's password: `scheme://user:password@`;
 * - `name=value` where the name says key, token, secret, password or auth (query strings, form
 *   bodies), and the credential headers quoted in a message (`X-Admin-Token: …`);
 * - `Bearer …` and `Basic …` credentials.
 */
const PATTERN = new RegExp(
  [
    `(?<![A-Za-z0-9])(?<tp>msk|mqs|adm)(?:_|%5[Ff])[A-Za-z0-9_%-]+`,
    String.raw`(?<up>\/\/[^\s:/@]*):[^\s@/]+@`,
    String.raw`(?<nv>[A-Za-z0-9_.-]*(?:key|token|secret|passw|pwd|auth)[A-Za-z0-9_.-]*(?:=|%3D))(?!\*\*\*)[^\s&#;,'"]+`,
    String.raw`(?<hv>\b(?:x-admin-token|x-service-api-key|(?:proxy-)?authorization)\s*:\s*)(?!\*\*\*)(?:(?:bearer|basic|digest)\s+)?[^\s,'"]+`,
    String.raw`(?<cr>\b(?:bearer|basic)\s+)(?!\*\*\*)[A-Za-z0-9._~+/=-]{8,}`,
  ].join('|'),
  'gi',
);

/** A cheap first look: a string holding none of these cannot match PATTERN. */
const SUSPECT = /msk|mqs|adm|\/\/|=|%3d|x-admin|x-service|authoriz|bearer|basic/i;

function replacer(match: string, ...args: unknown[]): string {
  const groups = args.at(-1) as Record<string, string | undefined>;
  if (groups.tp !== undefined) return `${groups.tp}_${HIDDEN}`;
  if (groups.up !== undefined) return `${groups.up}:${HIDDEN}@`;
  if (groups.nv !== undefined) return `${groups.nv}${HIDDEN}`;
  if (groups.hv !== undefined) return `${groups.hv}${HIDDEN}`;
  if (groups.cr !== undefined) return `${groups.cr}${HIDDEN}`;
  return match;
}

export type Redact = (text: string) => string;

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
  }
  // Longest first, so a secret that contains another is hidden whole.
  const byLength = [...values].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const v of byLength) if (out.includes(v)) out = out.replaceAll(v, HIDDEN);
    return SUSPECT.test(out) ? out.replace(PATTERN, replacer) : out;
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
