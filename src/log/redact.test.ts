// [SEC-1] The one redaction: what looks like a secret is hidden wherever it stands in a string, and
// what does not is left as it was (the same object, when nothing changed).

import { describe, expect, it } from 'vitest';
import { HIDDEN, redactDeep, secretRedactor, secretsOf } from './redact.ts';

const KEY = 'msk_3qZ8pLk0vR2mX9tYbW4nA7cD';
const TOKEN = 'operator-chosen-token-42';

describe('[SEC-1] secretRedactor', () => {
  const redact = secretRedactor(secretsOf({ adminToken: TOKEN, apiKey: 'demo' }));
  const cases: [string, string][] = [
    [`GET /api/v2/spaces/?api_key=${KEY} 401`, 'GET /api/v2/spaces/?api_key=*** 401'],
    [`GET /api/v2/spaces/?x=${KEY}`, 'GET /api/v2/spaces/?x=msk_***'],
    [`GET /${KEY}/devices 404`, 'GET /msk_***/devices 404'],
    ['GET /msk%5Fabcdefgh12345 404', 'GET /msk_*** 404'],
    ['GET /msk%255Fabcdefgh12345 404', 'GET /msk_*** 404'],
    [`GET /sim/v1/x?t=${TOKEN}`, 'GET /sim/v1/x?t=***'],
    [`GET /sim/v1/x?t=${encodeURIComponent(`${TOKEN}/`)}`, 'GET /sim/v1/x?t=***%2F'],
    [
      'MQTT login refused (user mqs_Zm9vYmFyYmF6cXV4): bad password',
      'MQTT login refused (user mqs_***): bad password',
    ],
    ['adm_k2l3j4h5g6f7d8s9a0 typed as a username', 'adm_*** typed as a username'],
    ['postgres://u:secret@127.0.0.1/test', 'postgres://u:***@127.0.0.1/test'],
    ['mqtt://svc:p%40ss@broker:1883 refused', 'mqtt://svc:***@broker:1883 refused'],
    ['?password=hunter2&n=1', '?password=***&n=1'],
    ['?client_secret=abc&token=xyz', '?client_secret=***&token=***'],
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30', 'Authorization: ***'],
    ['sent Bearer eyJhbGciOiJIUzI1NiJ9.e30 again', 'sent Bearer *** again'],
    ['header X-Admin-Token: whatever-it-was', 'header X-Admin-Token: ***'],
    // Left as they are: ordinary text, timestamps, meters, a 4-character key by value.
    ['MTR-A101 relay on (was off)', 'MTR-A101 relay on (was off)'],
    ['clock advanced 1 h to 2026-01-01T10:00:00+05:30', 'clock advanced 1 h to 2026-01-01T10:00:00+05:30'],
    ['the demo account', 'the demo account'],
    ['admin token refused', 'admin token refused'],
  ];
  it.each(cases)('%s', (input, expected) => {
    expect(redact(input)).toBe(expected);
    expect(redact(expected)).toBe(expected); // idempotent: the bus and the logger may both pass it
  });

  it('hides a known secret whole, whatever it looks like, and no known secret under 8 characters', () => {
    expect(redact(`user ${TOKEN}`)).toBe(`user ${HIDDEN}`);
    const twice = encodeURIComponent(encodeURIComponent(`${TOKEN}/x`));
    expect(redact(`/a?t=${twice}`)).not.toContain('operator');
    expect(secretRedactor(['abc'])('abc')).toBe('abc');
  });
});

describe('[SEC-1] redactDeep', () => {
  const redact = secretRedactor();
  it('copies only what changed', () => {
    const clean = { method: 'GET', url: '/healthz', meters: [{ device_id: 'MTR-1', n: 3 }] };
    expect(redactDeep(clean, redact)).toBe(clean);
    const dirty = { method: 'GET', url: `/x?key=${KEY}`, meters: clean.meters };
    const out = redactDeep(dirty, redact);
    expect(out).not.toBe(dirty);
    expect(out).toEqual({ method: 'GET', url: '/x?key=***', meters: clean.meters });
    expect(out.meters).toBe(clean.meters);
    expect(dirty.url).toContain(KEY); // the emitter's own object is not changed
  });
});

describe('[SEC-1] secretRedactor remembers only clean strings', () => {
  it('hides a secret every time it comes, before and after the same text came clean', () => {
    const redact = secretRedactor(['adm_0123456789abcdef']);
    const clean = '/api/v2/devices/:device_id/';
    const dirty = '/sim/v1/keys/msk_live_abcdef?token=abc12345';
    for (let i = 0; i < 3; i++) {
      expect(redact(clean)).toBe(clean);
      expect(redact(dirty)).toBe('/sim/v1/keys/msk_***?token=***');
      expect(redact('adm_0123456789abcdef')).toBe('***');
    }
  });
});
