// The CORS policy as a table: which origins each setting allows, and the settings refused
// (issue 10 item 2, spec-decisions 69).

import { describe, expect, it } from 'vitest';
import { type CorsOrigins, corsPolicy, originAllowed, originRefused, parseCorsFlag } from './cors-policy.ts';

const HOST = '127.0.0.1:8080';

describe('originAllowed', () => {
  const cases: [CorsOrigins, string, boolean][] = [
    // The default: loopback names on any port, http or https.
    ['localhost', 'http://localhost:5173', true],
    ['localhost', 'http://localhost', true],
    ['localhost', 'http://127.0.0.1:3000', true],
    ['localhost', 'http://[::1]:8081', true],
    ['localhost', 'https://localhost:4443', true],
    ['localhost', 'http://127.0.0.2:3000', false],
    ['localhost', 'http://localhost.evil.example', false],
    ['localhost', 'http://evil.example', false],
    ['localhost', 'null', false],
    ['localhost', 'file://', false],
    ['localhost', 'http://localhost:5173/path', false], // not a serialized origin
    ['localhost', 'HTTP://LOCALHOST:5173', false], // nor is this: browsers send lower case
    // Any.
    ['*', 'https://anything.example', true],
    ['*', 'null', true],
    // None but the service's own pages.
    ['off', 'http://localhost:5173', false],
    ['off', 'http://127.0.0.1:8080', true],
    // Exact origins, the default only when named.
    [['https://app.example.com'], 'https://app.example.com', true],
    [['https://app.example.com'], 'https://app.example.com:8443', false],
    [['https://app.example.com'], 'http://app.example.com', false],
    [['https://app.example.com'], 'http://localhost:5173', false],
    [['https://app.example.com', 'localhost'], 'http://localhost:5173', true],
    [['https://APP.example.com:443/'], 'https://app.example.com', true], // normalized
  ];
  it.each(cases)('%j allows %s: %s', (setting, origin, allowed) => {
    expect(originAllowed(corsPolicy(setting), origin, HOST)).toBe(allowed);
  });

  it("always allows the service's own origin, by whatever name it was reached", () => {
    const off = corsPolicy('off');
    expect(originAllowed(off, 'http://192.168.1.5:8080', '192.168.1.5:8080')).toBe(true);
    expect(originAllowed(off, 'http://meters.lan', 'meters.lan:80')).toBe(true);
    expect(originAllowed(off, 'http://[::1]:8080', '[::1]:8080')).toBe(true);
    expect(originAllowed(off, 'http://192.168.1.5:8080', '192.168.1.5:9090')).toBe(false);
    expect(originAllowed(off, 'http://192.168.1.5:8080', undefined)).toBe(false);
    expect(originAllowed(off, 'http://192.168.1.5:8080', 'bad host/x')).toBe(false);
    expect(originAllowed(off, 'http://a.example', 'a.example/x')).toBe(false);
    expect(originAllowed(off, 'http://a.example', 'u@a.example')).toBe(false);
    expect(originAllowed(off, 'https://a.example', 'a.example:443')).toBe(true);
    expect(originAllowed(off, 'https://a.example', 'a.example:80')).toBe(false);
    expect(originAllowed(off, 'http://a.example', 'A.Example')).toBe(true);
  });
});

describe('corsPolicy and parseCorsFlag', () => {
  it('reads the flag: *, off, localhost, or a comma-separated list', () => {
    expect(parseCorsFlag('*')).toBe('*');
    expect(parseCorsFlag(' off ')).toBe('off');
    expect(parseCorsFlag('localhost')).toBe('localhost');
    expect(parseCorsFlag('https://a.example, localhost')).toEqual(['https://a.example', 'localhost']);
    expect(() => parseCorsFlag('https://a.example,*')).toThrow(/stand alone/);
  });

  it.each([
    ['https://a.example/app', /not an origin/],
    ['https://a.example?x=1', /not an origin/],
    ['a.example', /not an origin/],
    ['localhost:3000', /not an origin/],
    ['ftp://a.example', /not an origin/],
    ['https://user@a.example', /not an origin/],
    ['', /not an origin/],
  ])('refuses %j, saying what an origin looks like', (item, message) => {
    expect(() => corsPolicy([item])).toThrow(TypeError);
    expect(() => corsPolicy([item])).toThrow(message);
  });

  it('refuses an empty list', () => {
    expect(() => corsPolicy([])).toThrow(TypeError);
  });

  it('a refusal names the origin (cut when long), what is allowed, and the flag', () => {
    const err = originRefused(corsPolicy(['https://a.example', 'localhost']), 'https://evil.example');
    expect(err.code).toBe('cors_origin_not_allowed');
    expect(err.status).toBe(403);
    expect(err.detail).toBe(
      'Origin https://evil.example may not call this service; allowed: localhost, 127.0.0.1 and [::1] ' +
        'on any port, https://a.example. Start it with --cors <origins> (METERSTACK_CORS) to allow more.',
    );
    expect(originRefused(corsPolicy('off'), 'x'.repeat(5000)).detail).toMatch(
      /^Origin x{200}… .*none \(--cors off\)/,
    );
  });
});
