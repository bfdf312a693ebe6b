// [SEC-5] Which Host headers the service answers (DNS rebinding, issue 18 item 9): a page on
// evil.example whose name an attacker re-points at 127.0.0.1 reaches this service from the victim's
// browser as same-origin, but its requests say `Host: evil.example`. Pure data and functions (the CLI
// checks --allowed-hosts without loading fastify); host-check.ts applies them.
//
// Accepted: the loopback names (`localhost`, 127.0.0.0/8, ::1), the --host address, and the names of
// --allowed-hosts; when --host is a wildcard (0.0.0.0, ::) also any IP literal, since the address a
// client reached us by (a LAN address, a NAT or a container's published port) cannot be known here and
// an IP literal cannot be re-pointed by DNS. The port is not compared: a rebinding page is same-origin
// with the service, so its port is the service's own, and a published port may differ from ours.
// Names compare case-insensitively, with one trailing dot ignored. No Host at all on HTTP/1.0 (which
// no browser sends) is accepted: there is no name to rebind (host-check.ts refuses it on HTTP/1.1).

import { isIP } from 'node:net';
import { ApiError } from './errors.ts';

export interface HostPolicy {
  /** No check at all (`--allowed-hosts '*'`). */
  readonly any: boolean;
  /** Lower-case names and IP literals (IPv6 without brackets). */
  readonly names: ReadonlySet<string>;
  /** Any IP literal (bound to a wildcard address). */
  readonly anyIp: boolean;
}

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '']);
const SHOWN_HOST_CHARS = 100;

/** A host name or IP literal as written in --allowed-hosts or --host: lower case, no brackets. */
function normalName(raw: string): string {
  const h = raw.trim().toLowerCase();
  const bare = h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
  return bare.endsWith('.') ? bare.slice(0, -1) : bare;
}

/** Checks one --allowed-hosts item: a name or an IP literal, without scheme, port or path. */
function allowedItem(item: string): string {
  const name = normalName(item);
  const ok =
    isIP(name) !== 0 ||
    /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name);
  if (!ok) {
    throw new TypeError(
      `'${item}' is not a host name: write names or IP addresses without scheme or port, e.g. meters.example.com,192.168.1.20`,
    );
  }
  return name;
}

/** `--allowed-hosts`: `*`, or comma-separated names. */
export function parseAllowedHosts(raw: string): '*' | string[] {
  const value = raw.trim();
  if (value === '*') return '*';
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(allowedItem);
}

/** The policy of a service bound to `bind` (its --host) that also answers `allowed`. */
export function hostPolicy(bind = '127.0.0.1', allowed: '*' | readonly string[] = []): HostPolicy {
  if (allowed === '*') return { any: true, names: new Set(), anyIp: true };
  const names = new Set(['localhost', '::1', ...allowed.map(allowedItem)]);
  const b = normalName(bind);
  const anyIp = WILDCARDS.has(b);
  if (!anyIp) names.add(b);
  return { any: false, names, anyIp };
}

/** The host part of a Host header (no port, no brackets, lower case, one trailing dot dropped). */
export function hostOf(header: string): string {
  const h = header.toLowerCase();
  let host: string;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    host = end < 0 ? h : h.slice(1, end);
  } else {
    const colon = h.lastIndexOf(':');
    host = colon < 0 ? h : h.slice(0, colon);
  }
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function loopback(ip: string, version: number): boolean {
  if (version === 4) return ip.startsWith('127.');
  return ip === '::1' || ip === '0:0:0:0:0:0:0:1' || ip.startsWith('::ffff:127.');
}

/** Whether a request with this Host header (undefined: none) is answered. */
export function hostAllowed(policy: HostPolicy, header: string | undefined): boolean {
  if (policy.any || header === undefined) return true;
  const host = hostOf(header);
  if (policy.names.has(host)) return true;
  const version = isIP(host);
  if (version === 0) return false;
  return policy.anyIp || loopback(host, version);
}

/** The refusal: which host, and how to allow more. The page that sent it may read this, so it does not
 * list the names the service does accept. */
export function hostRefused(header: string): ApiError {
  const shown = header.length > SHOWN_HOST_CHARS ? `${header.slice(0, SHOWN_HOST_CHARS)}…` : header;
  return new ApiError(
    'host_not_allowed',
    `Host ${JSON.stringify(shown)} is not a name this service answers to. ` +
      'Start it with --allowed-hosts <names> (METERSTACK_ALLOWED_HOSTS) to add one.',
  );
}
