// [SEC-5] Which Host headers are answered, as a table of the attacker's variants (DNS rebinding) and
// the names people really use. test/api/host-and-paths.test.ts checks the hook on a running service.

import { describe, expect, it } from 'vitest';
import { hostAllowed, hostOf, hostPolicy, parseAllowedHosts } from './host-policy.ts';

const loopbackOnly = hostPolicy('127.0.0.1');
const withNames = hostPolicy('127.0.0.1', parseAllowedHosts('meters.example.com, 192.168.1.20'));
const wildcard = hostPolicy('0.0.0.0');
const wildcard6 = hostPolicy('::');
const boundLan = hostPolicy('192.168.1.20');
const any = hostPolicy('127.0.0.1', '*');

// [policy, Host header (undefined: none), answered?]
const HOST_CASES: [string, ReturnType<typeof hostPolicy>, string | undefined, boolean][] = [
  ['loopback', loopbackOnly, 'localhost', true],
  ['loopback', loopbackOnly, 'localhost:8080', true],
  ['loopback', loopbackOnly, 'LOCALHOST:1', true],
  ['loopback', loopbackOnly, 'localhost.', true],
  ['loopback', loopbackOnly, 'localhost.:8080', true],
  ['loopback', loopbackOnly, '127.0.0.1', true],
  ['loopback', loopbackOnly, '127.0.0.1:65535', true],
  ['loopback', loopbackOnly, '127.3.2.1', true],
  ['loopback', loopbackOnly, '[::1]', true],
  ['loopback', loopbackOnly, '[::1]:8080', true],
  ['loopback', loopbackOnly, '[0:0:0:0:0:0:0:1]', true],
  ['loopback', loopbackOnly, '[::ffff:127.0.0.1]', true],
  ['loopback', loopbackOnly, undefined, true],
  ['loopback', loopbackOnly, 'evil.example', false],
  ['loopback', loopbackOnly, 'evil.example:8080', false],
  ['loopback', loopbackOnly, 'EVIL.EXAMPLE', false],
  ['loopback', loopbackOnly, 'evil.example.', false],
  ['loopback', loopbackOnly, 'localhost.evil.example', false],
  ['loopback', loopbackOnly, '127.0.0.1.evil.example', false],
  ['loopback', loopbackOnly, 'localhost@evil.example', false],
  ['loopback', loopbackOnly, 'evil.example@localhost', false],
  ['loopback', loopbackOnly, 'localhost:8080:1', false],
  ['loopback', loopbackOnly, 'localhost..', false],
  ['loopback', loopbackOnly, '', false],
  ['loopback', loopbackOnly, ':8080', false],
  ['loopback', loopbackOnly, '10.0.0.1', false],
  ['loopback', loopbackOnly, '[::2]', false],
  ['loopback', loopbackOnly, '[fe80::1]', false],
  ['loopback', loopbackOnly, '::1', false],
  ['loopback', loopbackOnly, '2130706433', false],
  ['loopback', loopbackOnly, '0x7f.0.0.1', false],
  ['loopback', loopbackOnly, '0177.0.0.1', false],
  ['loopback', loopbackOnly, '127.1', false],
  ['loopback', loopbackOnly, 'localhost\t', false],
  ['loopback', loopbackOnly, 'xn--localhost', false],
  ['loopback', loopbackOnly, 'meters.example.com', false],
  ['names', withNames, 'meters.example.com', true],
  ['names', withNames, 'METERS.example.com:443', true],
  ['names', withNames, 'meters.example.com.', true],
  ['names', withNames, '192.168.1.20:8080', true],
  ['names', withNames, 'x.meters.example.com', false],
  ['names', withNames, 'meters.example.com.evil.example', false],
  ['names', withNames, '192.168.1.21', false],
  ['names', withNames, 'localhost', true],
  ['0.0.0.0', wildcard, '192.168.1.20:8080', true],
  ['0.0.0.0', wildcard, '10.1.2.3', true],
  ['0.0.0.0', wildcard, '[fe80::1]:8080', true],
  ['0.0.0.0', wildcard, 'localhost', true],
  ['0.0.0.0', wildcard, 'evil.example', false],
  ['0.0.0.0', wildcard, 'mybox.local', false],
  ['::', wildcard6, '[2001:db8::1]', true],
  ['::', wildcard6, 'evil.example', false],
  ['192.168.1.20', boundLan, '192.168.1.20', true],
  ['192.168.1.20', boundLan, '192.168.1.21', false],
  ['192.168.1.20', boundLan, 'localhost', true],
  ['*', any, 'evil.example', true],
];

describe('[SEC-5] hostAllowed', () => {
  it.each(HOST_CASES)('%s: Host %j answered: %s', (_name, policy, header, answered) => {
    expect(hostAllowed(policy, header)).toBe(answered);
  });

  it('hostOf takes the port and brackets off, lower-cases and drops one trailing dot', () => {
    expect(hostOf('[::1]:80')).toBe('::1');
    expect(hostOf('Meters.Example.COM.:8080')).toBe('meters.example.com');
  });

  it('--allowed-hosts takes names and IP literals, not URLs or ports', () => {
    expect(parseAllowedHosts('*')).toBe('*');
    expect(parseAllowedHosts('A.example, [::1] ,10.0.0.1')).toEqual(['a.example', '::1', '10.0.0.1']);
    for (const bad of ['http://a.example', 'a.example:8080', 'a b', 'a/b', '*.example.com'])
      expect(() => parseAllowedHosts(bad)).toThrow(/is not a host name/);
  });
});
